import { afterAll, describe, expect, it, jest } from '@jest/globals';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chmod, cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@langchain/langgraph-sdk';
import { EXAMPLE_APP_DIR } from '../../support/deployment-flow.js';
import { freePort } from '../../support/free-port.js';

jest.setTimeout(300_000);

const CLI = resolve('dist/apps/cli/src/main.js');

interface Started {
  readonly child: ChildProcess;
  readonly output: () => string;
  readonly exited: Promise<unknown>;
}

/** The environment of a user's shell: nothing of Berth's but what a test gives. */
function userEnvironment(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined || name.startsWith('BERTH_') || name === 'DATABASE_URL') continue;
    env[name] = value;
  }
  return { ...env, ...extra };
}

function start(args: string[], cwd: string, env: Record<string, string>): Started {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  for (const stream of [child.stdout, child.stderr]) {
    stream.on('data', (chunk: Buffer) => (output += chunk.toString()));
  }
  return { child, output: () => output, exited: once(child, 'exit') };
}

async function run(args: string[], cwd: string, env: Record<string, string>) {
  const started = start(args, cwd, env);
  const [code] = (await started.exited) as [number | null];
  return { code, output: started.output() };
}

async function until(started: Started, text: string, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!started.output().includes(text)) {
    if (started.child.exitCode !== null || Date.now() > deadline)
      throw new Error(`no "${text}" in:\n${started.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function stop(started: Started): Promise<void> {
  if (started.child.exitCode !== null || started.child.signalCode !== null) return;
  started.child.kill('SIGTERM');
  await started.exited;
}

/** Every path under `dir`, relative, directories ending in `/`. */
async function tree(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .map((entry) => {
      const path = join(entry.parentPath, entry.name).slice(dir.length + 1);
      return entry.isDirectory() ? `${path}/` : path;
    })
    .sort();
}

describe('berth dev, then berth deploy, from the application directory beside npm start', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('shares the platform key and database, and uploads nothing of Berth own', async () => {
    const work = await mkdtemp(join(tmpdir(), 'berth-dev-deploy-'));
    cleanups.push(() => rm(work, { recursive: true, force: true }));
    // Run as root, the embedded PostgreSQL runs as the postgres OS user: it must reach its cluster.
    await chmod(work, 0o755);
    const platformDir = join(work, 'platform-data');
    const state = join(work, 'state');
    const controlPlanePort = String(await freePort());
    const platform = start(['up'], resolve('.'), {
      ...userEnvironment({ XDG_STATE_HOME: state }),
      BERTH_DATA_DIR: platformDir,
      BERTH_CONTROL_PLANE_PORT: controlPlanePort,
      BERTH_RUNTIME_PORT: String(await freePort()),
    });
    cleanups.push(() => stop(platform));
    await until(platform, 'Berth is up.', 150_000);
    const platformKey = (await readFile(join(platformDir, 'api-key'), 'utf8')).trim();

    // The application lives in the repository (berth dev resolves its packages from there), and
    // holds what an earlier berth dev left in it: its own .berth.
    const fixtures = await mkdtemp(resolve('test/fixtures/dev-deploy-'));
    cleanups.push(() => rm(fixtures, { recursive: true, force: true }));
    const app = join(fixtures, 'weather');
    await cp(EXAMPLE_APP_DIR, app, {
      recursive: true,
      filter: (source) => !source.split(/[\\/]/).includes('node_modules'),
    });
    await mkdir(join(app, '.berth'));
    await writeFile(join(app, '.berth', 'api-key'), 'berth_old_dev_key\n');
    await writeFile(join(app, '.berth', 'postgres.password'), 'old-dev-password\n');
    const before = await tree(app);

    const env = userEnvironment({ XDG_STATE_HOME: state });
    const dev = start(['dev', '--port', String(await freePort())], app, env);
    cleanups.push(() => stop(dev));
    // The banner's last line: the lines before it are written by then.
    await until(dev, '  API key (', 120_000);
    const said = dev.output().split('\n');
    expect(said[0]).toBe(
      `  Beside the Berth platform running in ${platformDir} (control plane ` +
        `http://127.0.0.1:${controlPlanePort}, pid ${platform.child.pid}): sharing its API key and PostgreSQL.`,
    );
    expect(dev.output()).toContain(`${join(app, '.berth')} was left by an earlier berth dev`);
    expect(dev.output()).toContain(`API key (the running platform): ${platformKey}`);
    expect(dev.output()).toContain(
      `the embedded PostgreSQL of the Berth running in ${platformDir}`,
    );
    const devUrl = /Berth agent runtime: (http\S+)/.exec(dev.output())?.[1] ?? '';
    const client = new Client({ apiUrl: devUrl, apiKey: platformKey });
    const state1 = (await client.runs.wait(null, 'agent', {
      input: { messages: [{ role: 'user', content: 'Weather in Oslo?' }] },
    })) as { messages: unknown[] };
    expect(state1.messages.length).toBeGreaterThan(1);
    // berth dev wrote nothing in the application's directory.
    expect(await tree(app)).toEqual(before);

    // With berth dev still running: no URL, no key given; the platform is found on its port.
    const deploy = await run(['deploy', '--json'], app, env);
    expect(deploy.code).toBe(0);
    const events = deploy.output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const uploaded = events.find((event) => event.event === 'uploaded') as {
      object_path: string;
      left_out: { path: string; reason: string }[];
    };
    expect(uploaded.left_out).toEqual([
      { path: '.berth/', reason: "Berth's own data: a dev server's database and API key" },
    ]);
    const archive = join(platformDir, uploaded.object_path);
    const listed = execFileSync('tar', ['-tzf', archive], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .map((path) => path.replace(/^package\//, ''))
      .sort();
    console.log(`The archive berth deploy uploaded after berth dev:\n${listed.join('\n')}`);
    expect(listed.some((path) => path.includes('.berth'))).toBe(false);
    expect(listed).toEqual(
      before.filter((path) => !path.startsWith('.berth') && !path.endsWith('/')),
    );
    expect(events.at(-1)).toMatchObject({ event: 'deployed' });

    // A platform on a non-default port, named by URL: its key is still found.
    const list = await run(['deploy', 'list', '--json'], work, {
      ...env,
      BERTH_HOST_URL: `http://localhost:${controlPlanePort}`,
    });
    expect(list.code).toBe(0);
    expect(list.output).toContain('"name":"weather"');

    await stop(dev);
    await stop(platform);
    // Stopped, the platform takes its record back.
    expect(await readdir(join(state, 'berth'))).toEqual([]);
  });
});
