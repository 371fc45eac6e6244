import { createHash, timingSafeEqual } from 'node:crypto';
import type { TenantKey } from '../control-plane.config.js';

/** Who is calling: a tenant, and which of its keys (by fingerprint, never the key). */
export type Caller = { readonly tenant_id: string; readonly key_id: string };

const sha256 = (value: string): Buffer => createHash('sha256').update(value).digest();

/** What a presented key is: a caller, a key of a tenant refused here (see TenantSandbox), or none. */
export type Identification =
  { readonly caller: Caller } | { readonly refusedTenant: string } | undefined;

/**
 * The API keys, held only as digests, and the tenant each acts for. Keys of the tenants in
 * `refusedTenants` are known but not accepted.
 */
export class TenantDirectory {
  private readonly entries: readonly { digest: Buffer; caller: Caller; refused: boolean }[];

  constructor(keys: readonly TenantKey[], refusedTenants: readonly string[] = []) {
    this.entries = keys.map(({ tenantId, key }) => {
      const digest = sha256(key);
      return {
        digest,
        caller: { tenant_id: tenantId, key_id: `key_${digest.toString('hex').slice(0, 12)}` },
        refused: refusedTenants.includes(tenantId),
      };
    });
  }

  /** Compares against every key in constant time, so timing tells nothing about a near miss. */
  identify(presented: string): Identification {
    const digest = sha256(presented);
    let found: (typeof this.entries)[number] | undefined;
    for (const entry of this.entries) {
      if (timingSafeEqual(entry.digest, digest)) found = entry;
    }
    if (!found) return undefined;
    return found.refused ? { refusedTenant: found.caller.tenant_id } : { caller: found.caller };
  }

  /** SHA-256 digests (hex) of a tenant's keys: what a deployment's runtime checks keys against. */
  keyDigestsOf(tenantId: string): string[] {
    return this.entries
      .filter((entry) => entry.caller.tenant_id === tenantId)
      .map((entry) => entry.digest.toString('hex'));
  }
}
