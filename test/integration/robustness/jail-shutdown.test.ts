import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { lstat, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@langchain/langgraph-sdk';
import { packDirectory } from '#libs/source-archive';
import { exampleAppWithEnvGraph, type AppFixture } from '../../support/app-fixture.js';
import {
  startControlPlane,
  type ControlPlaneProcess,
} from '../../support/control-plane-process.js';
import type { Deployment } from '../../support/deployment-flow.js';
import { deployAs, sealableOrSkipped } from '../../support/tenant-deploy.js';

jest.setTimeout(300_000);

const GATE_SCRIPT = 'database-gate-main.js';

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

/** The children of a process whose command line names the script. */
async function childrenRunning(parent: number, script: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const status = await readFile(`/proc/${entry}/status`, 'utf8').catch(() => '');
    if (!new RegExp(`^PPid:\\s+${parent}$`, 'm').test(status)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.split('\0').some((word) => word.endsWith(script))) found.push(Number(entry));
  }
  return found;
}

const describeWhereSealable = await sealableOrSkipped(describe, 'Jail shutdown tests');

describeWhereSealable('the jails of a control plane, supervised and stopped', () => {
  let cp: ControlPlaneProcess;
  let app: AppFixture;
  let deployment: Deployment;
  let client: Client;

  /** A thread made and a run of the `env` graph on it: both go through the database gate. */
  const runThroughDatabase = async (): Promise<unknown> => {
    const thread = await client.threads.create();
    return client.runs.wait(thread.thread_id, 'env', { input: { name: 'HOME' } });
  };

  beforeAll(async () => {
    cp = await startControlPlane({ env: { BERTH_ALLOW_UNSEALED_TENANTS: 'false' } });
    app = await exampleAppWithEnvGraph();
    const deployed = await deployAs(
      cp,
      cp.apiKey,
      'shutdown',
      (await packDirectory(app.dir)).archive,
    );
    expect(deployed.revision.status).toBe('DEPLOYED');
    deployment = deployed.deployment;
    client = new Client({ apiUrl: deployment.source_config.custom_url ?? '', apiKey: cp.apiKey });
  });

  afterAll(async () => {
    await cp.dispose();
    await app.remove();
  });

  it('starts the database gate process again when it ends, and runs reach the database again', async () => {
    await runThroughDatabase();
    const [gate, ...more] = await childrenRunning(cp.child.pid ?? 0, GATE_SCRIPT);
    expect(gate).toBeDefined();
    expect(more).toEqual([]);
    process.kill(gate ?? 0, 'SIGKILL');
    const deadline = Date.now() + 60_000;
    let last: unknown;
    for (;;) {
      last = await runThroughDatabase().then(
        () => undefined,
        (error: unknown) => error,
      );
      if (last === undefined || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(last).toBeUndefined();
    const [again] = await childrenRunning(cp.child.pid ?? 0, GATE_SCRIPT);
    expect(again).toBeDefined();
    expect(again).not.toBe(gate);
    expect(cp.output()).toMatch(/The database gate process ended \(SIGKILL\)/);
  });

  it('leaves no jail socket directory, control group or gate process behind on SIGTERM', async () => {
    const instance = (await readFile(join(cp.dataDir, 'instance-id'), 'utf8')).trim().slice(0, 8);
    const sockets = join('/run', `berth-${instance}`);
    const held = await readdir(sockets);
    expect(held).toContain(deployment.id);
    expect(held.some((entry) => entry.startsWith(`${deployment.id}-runtime-`))).toBe(true);
    expect(await groupsOf(instance)).not.toEqual([]);
    const pid = cp.child.pid ?? 0;
    const [gate] = await childrenRunning(pid, GATE_SCRIPT);
    expect(gate).toBeDefined();

    await cp.stop();
    expect(cp.child.exitCode).toBe(0);

    await expect(lstat(sockets)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await groupsOf(instance)).toEqual([]);
    await expect(lstat(`/proc/${gate ?? 0}`)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
