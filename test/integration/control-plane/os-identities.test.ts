import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { migrate } from '#libs/event-store';
import {
  FIRST_OS_ID,
  OS_IDENTITY_MIGRATIONS,
  OsIdentities,
} from '../../../apps/control-plane/src/isolation/os-identities.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';

const asRoot = process.getuid?.() === 0;
if (!asRoot) console.warn('OS id test of a process running as an id skipped: it needs root');
const itAsRoot = asRoot ? it : it.skip;

/** Two Berth instances on one host: each its own database and data directory, one registry. */
describe("OS ids claimed on the host, never another instance's or a running process's", () => {
  const databases: TestDatabase[] = [];
  const pools: pg.Pool[] = [];
  const dirs: string[] = [];
  let registry: string;
  let sleeper: ChildProcess | undefined;

  async function instance(): Promise<{ ids: OsIdentities; dataDir: string }> {
    const database = await createTestDatabase('os_ids');
    databases.push(database);
    const pool = new pg.Pool({ connectionString: database.url, max: 2 });
    pools.push(pool);
    await migrate(pool, 'read_model_migrations', OS_IDENTITY_MIGRATIONS);
    const dataDir = await mkdtemp(join(tmpdir(), 'berth-os-ids-data-'));
    dirs.push(dataDir);
    return { ids: await OsIdentities.open(pool, registry, dataDir), dataDir };
  }

  beforeAll(async () => {
    registry = await mkdtemp(join(tmpdir(), 'berth-os-ids-registry-'));
    dirs.push(registry);
  });

  afterEach(() => {
    sleeper?.kill('SIGKILL');
    sleeper = undefined;
  });

  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.end()));
    await Promise.all(databases.map((database) => database.drop()));
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it('gives two instances different ids for their first deployments, and keeps each', async () => {
    const first = await instance();
    const second = await instance();
    const a = await first.ids.of('deployment-a', 'tenant-1');
    const b = await second.ids.of('deployment-a', 'tenant-1');
    expect(new Set([a.uid, a.gid, b.uid, b.gid]).size).toBe(4);
    expect(await first.ids.of('deployment-a', 'tenant-1')).toEqual(a);
    // Another deployment of the same tenant: a user of its own, the tenant's group.
    const sibling = await first.ids.of('deployment-s', 'tenant-1');
    expect(sibling.gid).toBe(a.gid);
    expect([a.uid, a.gid, b.uid, b.gid]).not.toContain(sibling.uid);
    const claims = await readdir(registry);
    expect(claims.sort()).toEqual([a.uid, a.gid, b.uid, b.gid, sibling.uid].map(String).sort());
    const claim = await readFile(join(registry, String(b.uid)), 'utf8');
    expect(claim).toContain(second.ids.instanceId);
  });

  itAsRoot('never takes an id a running process has', async () => {
    const { ids } = await instance();
    const next = Math.max(...(await readdir(registry)).map(Number)) + 1;
    // A process of another program, running as the id this instance would take next.
    sleeper = spawn('sleep', ['30'], { uid: next, gid: next, stdio: 'ignore' });
    await new Promise((resolve) => sleeper?.once('spawn', resolve));
    const got = await ids.of('deployment-b', 'tenant-2');
    expect(got.uid).not.toBe(next);
    expect(got.gid).not.toBe(next);
    expect(got.uid).toBeGreaterThan(FIRST_OS_ID);
  });

  it("frees the claims of an instance whose data directory is gone, and a deleted deployment's", async () => {
    const gone = await instance();
    const old = await gone.ids.of('deployment-c', 'tenant-3');
    await writeFile(join(gone.dataDir, 'instance-id'), 'another-instance-now');
    const { ids } = await instance();
    // It prefers the lowest free id, so it meets the stale claims first and takes them.
    const taken = [
      await ids.of('deployment-d', 'tenant-4'),
      await ids.of('deployment-e', 'tenant-4'),
    ];
    expect(taken.map((identity) => identity.uid)).toContain(old.uid);

    await ids.release('deployment-d');
    const claims = await readdir(registry);
    expect(claims).not.toContain(String(taken[0]?.uid));
  });
});
