/**
 * Unwrapped data keys in memory, by key id, the most recently used kept up to a bound; an entry
 * older than `maxAgeMs` is looked up again, so a key destroyed by another process stops opening
 * here within that time. Keys never leave it but to encrypt or decrypt.
 */
export class DataKeyCache {
  private readonly keys = new Map<string, { key: Buffer; scope: string; at: number }>();
  private newest: string | undefined;

  constructor(
    private readonly maxKeys = 10_000,
    private readonly maxAgeMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  get(keyId: string): Buffer | undefined {
    const entry = this.keys.get(keyId);
    if (!entry) return undefined;
    if (this.now() - entry.at > this.maxAgeMs) {
      this.keys.delete(keyId);
      if (this.newest === keyId) this.newest = undefined;
      return undefined;
    }
    // Reads come in runs of one key (a thread's events): moving the newest again changes nothing.
    if (this.newest !== keyId) {
      this.keys.delete(keyId);
      this.keys.set(keyId, entry);
      this.newest = keyId;
    }
    return entry.key;
  }

  set(keyId: string, scope: string, key: Buffer): void {
    this.keys.delete(keyId);
    this.keys.set(keyId, { key, scope, at: this.now() });
    this.newest = keyId;
    for (const oldest of this.keys.keys()) {
      if (this.keys.size <= this.maxKeys) break;
      this.keys.delete(oldest);
    }
  }

  /** Forgets every key of the scope (it was destroyed). */
  forgetScope(scope: string): void {
    for (const [keyId, entry] of this.keys) {
      if (entry.scope !== scope) continue;
      this.keys.delete(keyId);
      if (this.newest === keyId) this.newest = undefined;
    }
  }

  get size(): number {
    return this.keys.size;
  }
}
