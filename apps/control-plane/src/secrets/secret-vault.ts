import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { SealedSecret } from './sealed-secret.js';
import { KEY_BYTES, seal, unseal } from './sealing.js';

export type PlainSecret = { name: string; value: string };

export const SECRET_VAULT_MIGRATIONS = [
  {
    version: 3001,
    name: 'deployment_keys',
    sql: `
      create table deployment_keys (
        deployment_id uuid primary key,
        wrapped_key text not null,
        created_at timestamptz not null default now()
      );
    `,
  },
];

/**
 * Secrets are sealed with a key of their deployment's own before they reach the event log. The
 * deployment keys live outside the log, wrapped by the platform's master key: forgetting a
 * deployment's key makes every copy of its secrets in the log unreadable.
 */
export class SecretVault {
  constructor(
    private readonly pool: pg.Pool,
    private readonly masterKey: Buffer,
  ) {}

  async seal(deploymentId: string, secrets: readonly PlainSecret[]): Promise<SealedSecret[]> {
    if (secrets.length === 0) return [];
    const key = await this.keyOf(deploymentId, true);
    return secrets.map(({ name, value }) => ({
      name,
      sealed: seal(key, value, `${deploymentId}/${name}`),
    }));
  }

  async open(deploymentId: string, sealed: readonly SealedSecret[]): Promise<PlainSecret[]> {
    if (sealed.length === 0) return [];
    const key = await this.keyOf(deploymentId, false);
    return sealed.map(({ name, sealed: value }) => ({
      name,
      value: unseal(key, value, `${deploymentId}/${name}`),
    }));
  }

  async forget(deploymentId: string): Promise<void> {
    await this.pool.query('delete from deployment_keys where deployment_id = $1', [deploymentId]);
  }

  private async keyOf(deploymentId: string, create: boolean): Promise<Buffer> {
    if (create) {
      const wrapped = seal(this.masterKey, randomBytes(KEY_BYTES).toString('base64'), deploymentId);
      await this.pool.query(
        `insert into deployment_keys (deployment_id, wrapped_key) values ($1, $2)
         on conflict (deployment_id) do nothing`,
        [deploymentId, wrapped],
      );
    }
    const { rows } = await this.pool.query<{ wrapped_key: string }>(
      'select wrapped_key from deployment_keys where deployment_id = $1',
      [deploymentId],
    );
    const row = rows[0];
    if (!row) throw new Error(`Deployment ${deploymentId} has no secret key (it was deleted)`);
    return Buffer.from(unseal(this.masterKey, row.wrapped_key, deploymentId), 'base64');
  }
}
