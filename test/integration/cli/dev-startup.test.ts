import { afterAll, describe, expect, it, jest } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@langchain/langgraph-sdk';
import { CANNOT_START_EXIT_CODE } from '#libs/config';
import { freePort } from '../../support/free-port.js';
import { readableLogs } from '../../support/readable-logs.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import { waitForOk } from '../../support/wait-for-ok.js';

jest.setTimeout(180_000);

const CLI = 'dist/apps/cli/src/main.js';
const RUNTIME = 'dist/apps/agent-runtime/src/main.js';
const GRAPH = `import { Annotation, START, StateGraph } from '@langchain/langgraph';
const State = Annotation.Root({ answer: Annotation<string> });
export const graph = new StateGraph(State)
  .addNode('respond', () => ({ answer: 'NAME' }))
  .addEdge(START, 'respond')
  .compile();
`;

interface Started {
  readonly child: ChildProcess;
  readonly output: () => string;
  readonly exited: Promise<number | null>;
}

function start(script: string, args: string[], env: Record<string, string | undefined>): Started {
  const child = spawn(process.execPath, [script, ...args], {
    env: { ...process.env, BERTH_LOG_PRETTY: 'true', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  for (const stream of [child.stdout, child.stderr]) {
    stream.on('data', (chunk: Buffer) => (output += chunk.toString()));
  }
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  return { child, output: () => readableLogs(output), exited };
}

/** An application named `name` in `parent` (inside the repository, its packages resolve). */
async function application(parent: string, name: string): Promise<string> {
  const dir = await mkdtemp(join(parent, `${name}-`));
  await writeFile(
    join(dir, 'langgraph.json'),
    JSON.stringify({ graphs: { app: './graph.ts:graph' } }),
  );
  await writeFile(join(dir, 'graph.ts'), GRAPH.replace('NAME', name));
  return dir;
}

/** The pids of a process's children (from /proc). */
async function childPids(pid: number): Promise<number[]> {
  const text = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '');
  return text.trim().split(/\s+/).filter(Boolean).map(Number);
}

function lastLine(output: string): string {
  return output.trim().split('\n').at(-1) ?? '';
}

/** Holds a port the way another server would. */
async function occupy(port: number): Promise<net.Server> {
  const server = net.createServer();
  await new Promise<void>((listening) => server.listen(port, '127.0.0.1', listening));
  return server;
}

async function stop(started: Started): Promise<void> {
  if (started.child.exitCode !== null || started.child.signalCode !== null) return;
  started.child.kill('SIGTERM');
  await started.exited;
}

describe('berth dev starts where it can, and says what to do where it cannot', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('starts beside another Berth on the same data directory, sharing its PostgreSQL and key', async () => {
    const apps = await mkdtemp(resolve('test/fixtures/dev-beside-'));
    cleanups.push(() => rm(apps, { recursive: true, force: true }));
    // Run as root, the embedded PostgreSQL runs as the postgres OS user: it must reach its cluster.
    await chmod(apps, 0o755);
    const dataDir = join(apps, '.berth');
    const env = { DATABASE_URL: undefined, BERTH_API_KEY: undefined, BERTH_DATA_DIR: dataDir };
    const first = start(
      CLI,
      ['dev', await application(apps, 'first'), '--port', String(await freePort())],
      env,
    );
    cleanups.push(() => stop(first));
    await expectServing(first);

    const second = start(CLI, ['dev', await application(apps, 'second')], env);
    cleanups.push(() => stop(second));
    const secondUrl = await expectServing(second);
    expect(second.output()).toContain(`the embedded PostgreSQL of the Berth running in ${dataDir}`);

    const firstUrl = urlOf(first.output());
    const key = keyOf(second.output());
    expect(keyOf(first.output())).toBe(key);
    for (const [url, answer] of [
      [firstUrl, 'first'],
      [secondUrl, 'second'],
    ] as const) {
      const client = new Client({ apiUrl: url, apiKey: key, callerOptions: { maxRetries: 0 } });
      expect(await client.runs.wait(null, 'app', { input: {} })).toEqual({ answer });
    }
    await stop(second);
    // The second one left the shared server running: the first still serves.
    const client = new Client({ apiUrl: firstUrl, apiKey: key, callerOptions: { maxRetries: 0 } });
    expect(await client.runs.wait(null, 'app', { input: {} })).toEqual({ answer: 'first' });
  });

  describe('on a database of its own', () => {
    let database: TestDatabase;
    afterAll(async () => {
      await database.drop();
    });

    const devEnv = () => ({ DATABASE_URL: database.url, BERTH_API_KEY: 'dev-startup-key' });

    it('stops with what to do when the port it was given is in use', async () => {
      database = await createTestDatabase('dev-startup');
      const port = await freePort();
      const taken = await occupy(port);
      cleanups.push(() => new Promise((closed) => taken.close(closed)));
      const apps = await mkdtemp(resolve('test/fixtures/dev-port-'));
      cleanups.push(() => rm(apps, { recursive: true, force: true }));
      const dev = start(
        CLI,
        ['dev', await application(apps, 'app'), '--port', String(port)],
        devEnv(),
      );
      expect(await dev.exited).toBe(1);
      expect(lastLine(dev.output())).toBe(
        `berth: Port ${port} on 127.0.0.1 is in use: stop what serves on it, or choose another (--port P, or BERTH_RUNTIME_PORT).`,
      );
    });

    it('stops, not restarts, when the application has no dependencies installed', async () => {
      // Outside the repository: nothing resolves @langchain/langgraph for it.
      const apps = await mkdtemp(join(tmpdir(), 'berth-dev-bare-'));
      cleanups.push(() => rm(apps, { recursive: true, force: true }));
      const dir = await application(apps, 'bare');
      const dev = start(CLI, ['dev', dir, '--port', String(await freePort())], devEnv());
      expect(await dev.exited).toBe(1);
      const output = dev.output();
      // Node 20 names the missing package; on Node 24 tsx's error names the graph file instead
      // (an application outside any package), and the runtime then says the generic line.
      const said = lastLine(output);
      expect([
        `[runtime] The application's dependencies are not installed (no package '@langchain/langgraph'): run npm install in ${dir}, then start again.`,
        `[runtime] Mend the graphs above in ${dir}/langgraph.json, then start again.`,
      ]).toContain(said);
      if (process.versions.node.startsWith('20.')) expect(said).toContain('npm install in');
      expect(output).not.toContain('restarting');
    });

    it('still restarts a runtime that dies after it was ready', async () => {
      const apps = await mkdtemp(resolve('test/fixtures/dev-restart-'));
      cleanups.push(() => rm(apps, { recursive: true, force: true }));
      const dev = start(
        CLI,
        ['dev', await application(apps, 'app'), '--port', String(await freePort())],
        devEnv(),
      );
      cleanups.push(() => stop(dev));
      const url = await expectServing(dev);
      const [runtimePid] = (await childPids(dev.child.pid ?? 0)).filter((pid) => pid > 0);
      if (runtimePid === undefined) throw new Error('no runtime process under berth dev');
      process.kill(runtimePid, 'SIGKILL');
      const deadline = Date.now() + 60_000;
      while (!dev.output().includes('runtime exited (SIGKILL); restarting it in 1 s')) {
        if (Date.now() > deadline) throw new Error(`no restart said:\n${dev.output()}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await waitForOk('the restarted runtime', dev.child, url, dev.output, 60_000);
      expect(dev.child.exitCode).toBeNull();
    });

    it('a runtime that finds its port taken exits as one that cannot start, saying so', async () => {
      const port = await freePort();
      const taken = await occupy(port);
      cleanups.push(() => new Promise((closed) => taken.close(closed)));
      const runtime = start(RUNTIME, [], {
        ...devEnv(),
        BERTH_RUNTIME_PORT: String(port),
        BERTH_GRAPH_CONFIG: resolve('examples/agent/langgraph.json'),
      });
      expect(await runtime.exited).toBe(CANNOT_START_EXIT_CODE);
      expect(lastLine(runtime.output())).toBe(
        `Port ${port} on 127.0.0.1 is in use: stop what serves on it, or choose another port (berth dev --port P, or BERTH_RUNTIME_PORT).`,
      );
    });
  });
});

async function expectServing(started: Started): Promise<string> {
  const deadline = Date.now() + 120_000;
  // The banner's last line (after the URL): the lines before it are written by then.
  while (!started.output().includes('  API key (')) {
    if (started.child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`berth dev did not start:\n${started.output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const url = urlOf(started.output());
  await waitForOk('berth dev', started.child, url, started.output, 10_000);
  return url;
}

function urlOf(output: string): string {
  const url = /Berth agent runtime: (http\S+)/.exec(output)?.[1];
  if (!url) throw new Error(`no URL in:\n${output}`);
  return url;
}

function keyOf(output: string): string {
  const key = /API key \([^)]*\): (\S+)/.exec(output)?.[1];
  if (!key) throw new Error(`no API key in:\n${output}`);
  return key;
}
