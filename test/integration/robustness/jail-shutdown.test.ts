import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { lstat, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  startControlPlane,
  type ControlPlaneProcess,
} from '../../support/control-plane-process.js';
import { packExample } from '../../support/deployment-flow.js';
import { deployAs, sealableOrSkipped } from '../../support/tenant-deploy.js';

jest.setTimeout(300_000);

/** This instance's control groups, by the prefix its jails' groups are named with. */
async function groupsOf(instance: string): Promise<string[]> {
  const parents = [
    '/sys/fs/cgroup/berth',
    '/sys/fs/cgroup/memory/berth',
    '/sys/fs/cgroup/pids/berth',
  ];
  const found: string[] = [];
  for (const parent of parents) {
    for (const entry of await readdir(parent).catch(() => [] as string[])) {
      if (entry.startsWith(`${instance}-`)) found.push(join(parent, entry));
    }
  }
  return found;
}

const describeWhereSealable = await sealableOrSkipped(describe, 'Jail shutdown tests');

describeWhereSealable('a control plane stopped with SIGTERM', () => {
  let cp: ControlPlaneProcess;

  beforeAll(async () => {
    cp = await startControlPlane({ env: { BERTH_ALLOW_UNSEALED_TENANTS: 'false' } });
  });

  afterAll(async () => {
    await cp.dispose();
  });

  it('leaves no jail socket directory or control group of its own behind', async () => {
    const { deployment, revision } = await deployAs(cp, cp.apiKey, 'shutdown', await packExample());
    expect(revision.status).toBe('DEPLOYED');
    const instance = (await readFile(join(cp.dataDir, 'instance-id'), 'utf8')).trim().slice(0, 8);
    const sockets = join('/run', `berth-${instance}`);
    const held = await readdir(sockets);
    expect(held).toContain(deployment.id);
    expect(held.some((entry) => entry.startsWith(`${deployment.id}-runtime-`))).toBe(true);
    expect(await groupsOf(instance)).not.toEqual([]);

    await cp.stop();
    expect(cp.child.exitCode).toBe(0);

    await expect(lstat(sockets)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await groupsOf(instance)).toEqual([]);
  });
});
