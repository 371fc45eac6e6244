import { randomUUID } from 'node:crypto';
import { mkdir, open, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type pg from 'pg';
import { errorCode } from './tenant-tree.js';

/** Far above the users and groups a distribution hands out, so none is shared with the host. */
export const FIRST_OS_ID = 600_000;
/** How many ids Berth instances on one host may hold together. */
const OS_ID_RANGE = 1_000_000;

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
  {
    version: 3102,
    name: 'os_identities_claimed_on_the_host',
    sql: `alter table os_identities add column os_id integer;`,
  },
];

/** The OS user and group a deployment's builds and runtimes run as. */
export type OsIdentity = { readonly uid: number; readonly gid: number };

/** Ids that something on this host already uses: a user or group entry, or a process. */
async function idsInUse(): Promise<Set<number>> {
  const used = new Set<number>();
  for (const file of ['/etc/passwd', '/etc/group']) {
    const text = await readFile(file, 'utf8').catch(() => '');
    for (const line of text.split('\n')) used.add(Number(line.split(':')[2]));
  }
  for (const pid of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(pid)) continue;
    const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
    for (const match of status.matchAll(/^(?:Uid|Gid):\s+(\d+)\s+(\d+)/gm)) {
      used.add(Number(match[1])).add(Number(match[2]));
    }
  }
  return used;
}

/**
 * Numeric OS ids for deployments (users) and tenants (groups), allocated once and kept: a user of
 * its own per deployment, a group of its own per tenant. They need no /etc/passwd entry. Each id
 * is claimed on the host as a file of the registry directory, made with O_EXCL, so two Berth
 * instances on one host never share one; an id that a user entry or a running process has is
 * never taken. A claim whose instance's data directory is gone is free again.
 */
export class OsIdentities {
  private constructor(
    private readonly pool: pg.Pool,
    private readonly registry: string,
    private readonly instance: { readonly id: string; readonly file: string },
  ) {}

  /** Allocations one at a time, so that an owner asked for twice at once gets one id. */
  private allocating: Promise<unknown> = Promise.resolve();

  static async open(pool: pg.Pool, registry: string, dataDir: string): Promise<OsIdentities> {
    await mkdir(registry, { recursive: true, mode: 0o700 });
    const file = join(dataDir, 'instance-id');
    let id = (await readFile(file, 'utf8').catch(() => '')).trim();
    if (!id) {
      id = randomUUID();
      await writeFile(file, id, { mode: 0o600 });
    }
    return new OsIdentities(pool, registry, { id, file });
  }

  /** The id this instance is known by on the host (the registry's claims name it). */
  get instanceId(): string {
    return this.instance.id;
  }

  of(deploymentId: string, tenantId: string): Promise<OsIdentity> {
    const identity = this.allocating.then(async () => {
      const uid = await this.allocate('deployment', deploymentId);
      const gid = await this.allocate('tenant', tenantId);
      return { uid, gid };
    });
    this.allocating = identity.catch(() => undefined);
    return identity;
  }

  /** Gives the deployment's user back to the host. */
  async release(deploymentId: string): Promise<void> {
    const { rows } = await this.pool.query<{ os_id: number | null }>(
      `delete from os_identities where kind = 'deployment' and owner_id = $1 returning os_id`,
      [deploymentId],
    );
    const osId = rows[0]?.os_id;
    if (osId && (await this.isClaimOf(osId, 'deployment', deploymentId))) {
      await rm(join(this.registry, String(osId)), { force: true });
    }
  }

  private async allocate(kind: 'deployment' | 'tenant', ownerId: string): Promise<number> {
    const { rows } = await this.pool.query<{ os_id: number | null; number: number }>(
      `with made as (
         insert into os_identities (kind, owner_id) values ($1, $2)
         on conflict (kind, owner_id) do nothing returning os_id, number)
       select os_id, number from made
       union all
       select os_id, number from os_identities where kind = $1 and owner_id = $2`,
      [kind, ownerId],
    );
    const row = rows[0];
    if (!row) throw new Error(`No OS id could be allocated for ${kind} ${ownerId}`);
    if (row.os_id !== null && (await this.isClaimOf(row.os_id, kind, ownerId))) {
      return row.os_id;
    }
    // Ids of before the registry (FIRST_OS_ID + number) are kept when no one else claimed them.
    const preferred = row.os_id ?? FIRST_OS_ID + row.number;
    const osId = await this.claim(kind, ownerId, preferred);
    await this.pool.query(`update os_identities set os_id = $3 where kind = $1 and owner_id = $2`, [
      kind,
      ownerId,
      osId,
    ]);
    return osId;
  }

  /** Claims `preferred` if it is free, else the first free id after it. */
  private async claim(kind: string, ownerId: string, preferred: number): Promise<number> {
    const used = await idsInUse();
    for (let step = 0; step < OS_ID_RANGE; step++) {
      const osId = FIRST_OS_ID + 1 + ((preferred - FIRST_OS_ID - 1 + step) % OS_ID_RANGE);
      if (used.has(osId)) continue;
      if (await this.isClaimOf(osId, kind, ownerId)) return osId;
      const claimed = (await this.claimOf(osId)) !== undefined;
      if (claimed && !(await this.isStale(osId))) continue;
      if (claimed) await rm(join(this.registry, String(osId)), { force: true });
      const made = await open(join(this.registry, String(osId)), 'wx', 0o600).catch(
        (error: unknown) => {
          if (errorCode(error) === 'EEXIST') return undefined;
          throw error;
        },
      );
      if (!made) continue;
      await made.writeFile(`${this.instance.id} ${this.instance.file} ${kind} ${ownerId}\n`);
      await made.close();
      return osId;
    }
    throw new Error('Every OS id of the range is taken on this host');
  }

  /** The claim's words: instance id, its instance file, kind, owner id. */
  private async claimOf(osId: number): Promise<string[] | undefined> {
    const text = await readFile(join(this.registry, String(osId)), 'utf8').catch(() => undefined);
    return text?.trim().split(' ');
  }

  /** Whether this instance claimed the id for this owner (not for another of its own). */
  private async isClaimOf(osId: number, kind: string, ownerId: string): Promise<boolean> {
    const [instance, , claimedKind, owner] = (await this.claimOf(osId)) ?? [];
    return instance === this.instance.id && claimedKind === kind && owner === ownerId;
  }

  /** A claim whose instance's data directory no longer names that instance. */
  private async isStale(osId: number): Promise<boolean> {
    const text = await readFile(join(this.registry, String(osId)), 'utf8').catch(() => '');
    const [id, file] = text.split(' ');
    if (!id || !file) return false;
    const current = await readFile(file, 'utf8').catch(() => undefined);
    return current === undefined ? true : current.trim() !== id;
  }
}
