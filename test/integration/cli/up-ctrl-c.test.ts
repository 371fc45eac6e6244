import { afterAll, describe, expect, it, jest } from '@jest/globals';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../support/free-port.js';

jest.setTimeout(180_000);

/** Whether a process runs with this pid. */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('Ctrl-C on npm start (berth up)', () => {
  let work: string;
  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it('stops the platform quietly: the database goes last, nothing fails on the way', async () => {
    work = await mkdtemp(join(tmpdir(), 'berth-ctrl-c-'));
    // Run as root, the embedded PostgreSQL runs as the postgres OS user: it must reach its cluster.
    await chmod(work, 0o755);
    const dataDir = join(work, '.berth');
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      BERTH_DATA_DIR: dataDir,
      BERTH_CONTROL_PLANE_PORT: String(await freePort()),
      BERTH_RUNTIME_PORT: String(await freePort()),
    };
    delete env.DATABASE_URL;
    delete env.BERTH_API_KEY;
    // A process group of its own, as a terminal gives the command it runs in the foreground.
    const up = spawn(process.execPath, ['dist/apps/cli/src/main.js', 'up'], {
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    for (const stream of [up.stdout, up.stderr]) {
      stream.on('data', (chunk: Buffer) => (output += chunk.toString()));
    }
    const exited = once(up, 'exit');
    const deadline = Date.now() + 150_000;
    while (!output.includes('Berth is up.')) {
      if (up.exitCode !== null || Date.now() > deadline)
        throw new Error(`berth up did not start:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const postmaster = Number(
      (await readFile(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[0],
    );
    const upAt = output.length;

    // What a terminal does on Ctrl-C: SIGINT to every process of the foreground group.
    process.kill(-(up.pid ?? 0), 'SIGINT');
    const [code] = (await exited) as [number | null];

    const shutdown = output.slice(upAt);
    expect(code).toBe(0);
    expect(shutdown).toContain('[control-plane]');
    expect(shutdown).not.toMatch(
      /"level":"(error|fatal)"|Unhandled|cannot be reached|exited \(|restarting/,
    );
    expect(isRunning(postmaster)).toBe(false);
  });
});
