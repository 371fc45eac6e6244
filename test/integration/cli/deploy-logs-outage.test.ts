import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import {
  restartControlPlane,
  startControlPlane,
  type ControlPlaneProcess,
} from '../../support/control-plane-process.js';
import {
  createSourceDeployment,
  packExample,
  patchSource,
  waitForRevision,
} from '../../support/deployment-flow.js';
import { startSwitchableProxy } from '../../support/switchable-proxy.js';

jest.setTimeout(300_000);

const CLI = resolve('dist/apps/cli/src/main.js');

interface Follower {
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  stdout(): string;
  stderr(): string;
}

interface Record {
  readonly id: string;
  readonly type: string;
  readonly message: string;
}

/** How long a silence the SIGSTOP test's follower takes for an outage (the default is 30 s). */
const SILENCE_SECONDS = 15;

/** `berth deploy logs <id> --follow --json` as a real process, reaching the control plane at `url`. */
function follow(
  cp: ControlPlaneProcess,
  deploymentId: string,
  url = cp.url,
  settings: NodeJS.ProcessEnv = {},
): Follower {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('BERTH_') && name !== 'DATABASE_URL') env[name] = value;
  }
  const child = spawn(
    process.execPath,
    [CLI, 'deploy', 'logs', deploymentId, '--follow', '--json'],
    {
      env: { ...env, BERTH_HOST_URL: url, BERTH_API_KEY: cp.apiKey, ...settings },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

function recordsOf(stdout: string): Record[] {
  return stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record);
}

/** Resolves once `met` holds, looking every 100 ms; fails saying what was seen after `ms`. */
async function until(ms: number, what: string, follower: Follower, met: () => boolean) {
  const deadline = Date.now() + ms;
  while (!met()) {
    if (Date.now() > deadline || follower.child.exitCode !== null) {
      throw new Error(`no ${what}; stdout:\n${follower.stdout()}\nstderr:\n${follower.stderr()}`);
    }
    await new Promise((done) => setTimeout(done, 100));
  }
}

describe('berth deploy logs --follow while the platform stops and starts again', () => {
  let cp: ControlPlaneProcess;
  let deploymentId = '';

  beforeAll(async () => {
    cp = await startControlPlane();
    const deployment = await createSourceDeployment(cp, 'followed-through-restart');
    deploymentId = deployment.id;
    const revision =
      (await patchSource(cp, deploymentId, await packExample())).latest_revision_id ?? '';
    expect((await waitForRevision(cp, deploymentId, revision, 180_000)).status).toBe('DEPLOYED');
  }, 240_000);

  afterAll(async () => {
    await cp.dispose();
  }, 120_000);

  it('says the platform stopped answering, reconnects, and prints the lines after the restart once', async () => {
    const follower = follow(cp, deploymentId);
    try {
      const serving = (): Record[] =>
        recordsOf(follower.stdout()).filter((record) => record.message.startsWith('Serving at'));
      await until(30_000, 'line saying the runtime serves', follower, () => serving().length > 0);
      const before = recordsOf(follower.stdout());

      await cp.stop();
      await until(30_000, 'word of the outage', follower, () =>
        follower.stderr().includes('berth: the platform stopped answering ('),
      );
      cp = await restartControlPlane(cp);
      await until(60_000, 'word of the reconnection', follower, () =>
        follower.stderr().includes('berth: reconnected to the platform; following the logs again'),
      );
      await until(60_000, 'line of the restarted revision', follower, () =>
        recordsOf(follower.stdout()).some((record) =>
          record.message.includes('Starting the active revision again'),
        ),
      );

      const after = recordsOf(follower.stdout());
      // What was printed before the outage is not printed again, nor any line twice.
      expect(after.slice(0, before.length)).toEqual(before);
      expect(new Set(after.map((record) => record.id)).size).toBe(after.length);
      const restarted = after.filter((record) =>
        record.message.includes('Starting the active revision again'),
      );
      expect(restarted).toHaveLength(1);
      // Each notice is one line: the outage (then maybe more tries), the reconnection.
      const notices = follower.stderr().trim().split('\n');
      expect(notices[0]).toMatch(
        /^berth: the platform stopped answering \(.+\); reconnecting in 1 s…$/,
      );
      for (const notice of notices.slice(1, -1)) {
        expect(notice).toMatch(
          /^berth: still no answer from the platform \(.+\); reconnecting in \d+ s…$/,
        );
      }
      expect(notices.at(-1)).toBe('berth: reconnected to the platform; following the logs again');
    } finally {
      follower.child.kill('SIGINT');
    }
    expect(await follower.exited).toBe(130);
    expect(follower.stderr().trim().split('\n').at(-1)).toBe(
      'berth: stopped following the logs of followed-through-restart',
    );
  });

  it('notices a platform that stops answering without closing the connection, and reconnects once it answers', async () => {
    // A silence past the control plane's 10 s heartbeat, shorter than the default's 30 s.
    const follower = follow(cp, deploymentId, cp.url, {
      BERTH_FOLLOW_SILENCE_SECONDS: String(SILENCE_SECONDS),
    });
    const pid = cp.child.pid ?? 0;
    try {
      await until(30_000, 'first lines', follower, () => recordsOf(follower.stdout()).length > 0);
      const before = recordsOf(follower.stdout());
      // Frozen, not stopped: the connection stays open and nothing comes, not even a heartbeat.
      process.kill(pid, 'SIGSTOP');
      await until(60_000, 'word of the silence', follower, () =>
        follower
          .stderr()
          .includes(`berth: the platform stopped answering (no answer in ${SILENCE_SECONDS} s)`),
      );
      process.kill(pid, 'SIGCONT');
      await until(90_000, 'word of the reconnection', follower, () =>
        follower.stderr().includes('berth: reconnected to the platform; following the logs again'),
      );
      const after = recordsOf(follower.stdout());
      expect(after.slice(0, before.length)).toEqual(before);
      expect(new Set(after.map((record) => record.id)).size).toBe(after.length);
    } finally {
      process.kill(pid, 'SIGCONT');
      follower.child.kill('SIGINT');
    }
    expect(await follower.exited).toBe(130);
  });

  it('ends, saying so, with exit code 1 when it finds the deployment gone on reconnecting', async () => {
    const proxy = await startSwitchableProxy(cp.port);
    const follower = follow(cp, deploymentId, proxy.url);
    try {
      await until(30_000, 'first lines', follower, () => recordsOf(follower.stdout()).length > 0);
      await proxy.stop();
      await until(30_000, 'word of the outage', follower, () =>
        follower.stderr().includes('berth: the platform stopped answering ('),
      );
      expect((await cp.api('DELETE', `/v2/deployments/${deploymentId}`)).status).toBe(204);
      const deadline = Date.now() + 60_000;
      while ((await cp.api('GET', `/v2/deployments/${deploymentId}`)).status !== 404) {
        if (Date.now() > deadline) throw new Error('the deployment was never deleted');
        await new Promise((done) => setTimeout(done, 200));
      }
      await proxy.start();
      expect(await follower.exited).toBe(1);
      expect(follower.stderr().trim().split('\n').at(-1)).toMatch(
        /^berth: followed-through-restart is gone \(404 .+\); stopped following its logs$/,
      );
    } finally {
      follower.child.kill('SIGINT');
      await proxy.close();
    }
  });
});
