import { decryptBytes, DecryptionError, encryptBytes } from './aes-gcm.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The fields the hosted server never encrypts, whatever LANGGRAPH_AES_JSON_KEYS names. */
export const SYSTEM_JSON_KEYS: ReadonlySet<string> = new Set([
  'langgraph_version',
  'langgraph_api_version',
  'langgraph_plan',
  'langgraph_host',
  'langgraph_api_url',
  'langgraph_request_id',
  'langgraph_auth_user_id',
  'langgraph_auth_permissions',
  // Berth reads these from a thread's metadata to run it.
  'graph_id',
  'assistant_id',
]);

/** The scope of the data key that encrypts the named keys' values in the read models. */
export const JSON_KEYS_SCOPE = 'json-keys';

/** What marks a value as encrypted: the prefix, then an AES-GCM box of its JSON text. */
const SEALED_PREFIX = '$berth-aes:';

/** LANGGRAPH_AES_JSON_KEYS: comma-separated names; the system fields are left out. */
export function parseJsonKeys(text: string | undefined): string[] {
  const names = (text ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '' && !SYSTEM_JSON_KEYS.has(name));
  return [...new Set(names)];
}

const contextOf = (name: string): string => `berth json key\0${name}`;

/**
 * Encrypts the values of the named keys wherever they appear in a JSON value (at any depth, in
 * objects and arrays), each into a string of its own: the other keys, and the names, stay as
 * they are. Sealing a sealed value again leaves it; opening a value that was never sealed too.
 */
export class JsonKeyCipher {
  private readonly names: ReadonlySet<string>;

  constructor(
    names: Iterable<string>,
    private readonly key: Buffer,
  ) {
    this.names = new Set(names);
  }

  get isEmpty(): boolean {
    return this.names.size === 0;
  }

  seal<T>(value: T): T {
    return this.names.size === 0 ? value : (this.walk(value as Json, true) as T);
  }

  open<T>(value: T): T {
    return this.names.size === 0 ? value : (this.walk(value as Json, false) as T);
  }

  /** The first encrypted key a filter names (at any depth), or undefined. */
  namedIn(filter: unknown): string | undefined {
    if (Array.isArray(filter)) {
      for (const item of filter) {
        const named = this.namedIn(item);
        if (named !== undefined) return named;
      }
      return undefined;
    }
    if (filter === null || typeof filter !== 'object') return undefined;
    for (const [name, inner] of Object.entries(filter)) {
      if (this.names.has(name)) return name;
      const named = this.namedIn(inner);
      if (named !== undefined) return named;
    }
    return undefined;
  }

  private walk(value: Json, sealing: boolean): Json {
    if (Array.isArray(value)) return value.map((item) => this.walk(item, sealing));
    if (value === null || typeof value !== 'object') return value;
    const out: { [key: string]: Json } = {};
    for (const [name, inner] of Object.entries(value)) {
      if (!this.names.has(name)) out[name] = this.walk(inner, sealing);
      else out[name] = sealing ? this.sealOne(name, inner) : this.openOne(name, inner);
    }
    return out;
  }

  private sealOne(name: string, value: Json): Json {
    if (typeof value === 'string' && value.startsWith(SEALED_PREFIX)) return value;
    const text = Buffer.from(JSON.stringify(value), 'utf8');
    return SEALED_PREFIX + encryptBytes(this.key, text, contextOf(name));
  }

  private openOne(name: string, value: Json): Json {
    if (typeof value !== 'string' || !value.startsWith(SEALED_PREFIX)) return value;
    try {
      const text = decryptBytes(this.key, value.slice(SEALED_PREFIX.length), contextOf(name));
      return JSON.parse(text.toString('utf8')) as Json;
    } catch (error) {
      if (error instanceof DecryptionError) return value;
      throw error;
    }
  }
}

/** The 422 detail for a filter on an encrypted key. */
export function encryptedFilterDetail(name: string): string {
  return (
    `The filter names "${name}", a key whose values are stored encrypted ` +
    '(LANGGRAPH_AES_JSON_KEYS): encrypted fields cannot be searched or filtered on'
  );
}
