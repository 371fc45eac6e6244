import type pg from 'pg';

/** Far above the users and groups a distribution hands out, so none is shared with the host. */
export const FIRST_OS_ID = 600_000;

export const OS_IDENTITY_MIGRATIONS = [
  {
    version: 3101,
    name: 'os_identities',
    sql: `
      create table os_identities (
        kind text not null check (kind in ('deployment', 'tenant')),
        owner_id text not null,
        number integer generated always as identity,
        primary key (kind, owner_id)
      );
    `,
  },
];

/** The OS user and group a deployment's builds and runtimes run as. */
export type OsIdentity = { readonly uid: number; readonly gid: number };

/**
 * Numeric OS ids for deployments (users) and tenants (groups), allocated once and kept: a user of
 * its own per deployment, a group of its own per tenant. They need no /etc/passwd entry.
 */
export class OsIdentities {
  constructor(private readonly pool: pg.Pool) {}

  async of(deploymentId: string, tenantId: string): Promise<OsIdentity> {
    const [uid, gid] = await Promise.all([
      this.allocate('deployment', deploymentId),
      this.allocate('tenant', tenantId),
    ]);
    return { uid, gid };
  }

  private async allocate(kind: 'deployment' | 'tenant', ownerId: string): Promise<number> {
    const { rows } = await this.pool.query<{ number: number }>(
      `with made as (
         insert into os_identities (kind, owner_id) values ($1, $2)
         on conflict (kind, owner_id) do nothing returning number)
       select number from made
       union all
       select number from os_identities where kind = $1 and owner_id = $2`,
      [kind, ownerId],
    );
    const number = rows[0]?.number;
    if (number === undefined) throw new Error(`No OS id could be allocated for ${kind} ${ownerId}`);
    return FIRST_OS_ID + number;
  }
}
