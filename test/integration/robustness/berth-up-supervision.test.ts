import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../support/free-port.js';
import { within } from '../../support/within.js';

jest.setTimeout(240_000);

const CLI = resolve('dist/apps/cli/src/main.js');
const run = promisify(execFile);

async function answers(url: string): Promise<boolean> {
  return fetch(`${url}/ok`).then(
    (response) => response.ok,
    () => false,
  );
}

async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
  const poll = async (): Promise<void> => {
    while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 100));
  };
  await within(poll(), 60_000, what);
}

/** The pid of the child of `parent` whose command line contains `script`. */
async function childRunning(parent: number, script: string): Promise<number> {
  const { stdout } = await run('ps', ['-o', 'pid=,args=', '--ppid', String(parent)]);
  const line = stdout.split('\n').find((candidate) => candidate.includes(script));
  if (!line) throw new Error(`No child of ${parent} runs ${script}:\n${stdout}`);
  return Number(line.trim().split(/\s+/)[0]);
}

describe('berth up keeps the platform up when one of its processes dies', () => {
  let dataDir: string;
  let up: ChildProcess;
  let output = '';
  let controlPlaneUrl: string;
  let runtimeUrl: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'berth-up-'));
    const [controlPlanePort, runtimePort] = [await freePort(), await freePort()];
    controlPlaneUrl = `http://127.0.0.1:${controlPlanePort}`;
    runtimeUrl = `http://127.0.0.1:${runtimePort}`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      BERTH_DATA_DIR: dataDir,
      BERTH_CONTROL_PLANE_PORT: String(controlPlanePort),
      BERTH_RUNTIME_PORT: String(runtimePort),
      BERTH_API_KEY: 'up-test-key-0123456789',
      BERTH_DEPLOYMENT_PORTS: '29100-29199',
    };
    delete env.DATABASE_URL;
    up = spawn(process.execPath, [CLI, 'up'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const collect = (chunk: Buffer): void => {
      output += chunk.toString();
    };
    up.stdout?.on('data', collect);
    up.stderr?.on('data', collect);
    await until(
      () => Promise.resolve(output.includes('Berth is up')),
      `berth up started:\n${output}`,
    );
  });

  afterAll(async () => {
    if (up.exitCode === null && up.signalCode === null) {
      const exited = once(up, 'exit');
      up.kill('SIGTERM');
      await exited;
    }
    await rm(dataDir, { recursive: true, force: true });
  });

  it('restarts the example runtime after it is killed, and the control plane serves throughout', async () => {
    const pid = await childRunning(up.pid ?? 0, 'agent-runtime');
    process.kill(pid, 'SIGKILL');
    await until(
      () => Promise.resolve(output.includes('example-runtime exited (SIGKILL); restarting')),
      'restart logged',
    );
    expect(await answers(controlPlaneUrl)).toBe(true);
    await until(() => answers(runtimeUrl), 'the runtime answers again');
    expect(await childRunning(up.pid ?? 0, 'agent-runtime')).not.toBe(pid);
    expect(up.exitCode).toBeNull();
  });

  it('stops everything when the control plane itself dies', async () => {
    const pid = await childRunning(up.pid ?? 0, 'control-plane');
    const exited = once(up, 'exit');
    process.kill(pid, 'SIGKILL');
    await within(exited, 60_000, 'berth up stopped');
    expect(output).toContain('control-plane exited (SIGKILL); stopping');
    expect(await answers(runtimeUrl)).toBe(false);
  });
});
