import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '../../support/free-port.js';
import { structuredLogLines } from '../../support/readable-logs.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import { waitForOk } from '../../support/wait-for-ok.js';

jest.setTimeout(120_000);

const CLI = resolve('dist/apps/cli/src/main.js');
const RUNTIME = resolve('dist/apps/agent-runtime/src/main.js');
const GRAPH_CONFIG = resolve('examples/agent/langgraph.json');
/** A readable log line as pino-pretty writes it: `[12:34:56.789] INFO: message`. */
const READABLE = /^\[\d\d:\d\d:\d\d\.\d{3}\] (INFO|WARN|ERROR|DEBUG): \S/;

interface Running {
  readonly child: ChildProcess;
  /** What it wrote, colours and carriage returns taken out. */
  readonly output: () => string;
}

/**
 * Runs `node script args` with its stdout a terminal (a real pseudo-terminal, through util-linux
 * `script`), or a pipe.
 */
function run(
  script: string,
  args: readonly string[],
  env: Record<string, string>,
  stdout: 'terminal' | 'pipe',
): Running {
  const command = [process.execPath, script, ...args].map((word) => `'${word}'`).join(' ');
  const child =
    stdout === 'terminal'
      ? spawn('script', ['-qfec', command, '/dev/null'], { env, stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn(process.execPath, [script, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  for (const stream of [child.stdout, child.stderr]) {
    stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  }
  return {
    child,
    // eslint-disable-next-line no-control-regex
    output: () => text.replace(/\u001b\[[0-9;]*m/g, '').replace(/\r/g, ''),
  };
}

async function stop(running: Running): Promise<void> {
  const { child } = running;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

/** The lines of a process's output, without a supervisor's `[name] ` prefix. */
function linesOf(output: string, prefix = ''): string[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith(prefix))
    .map((line) => line.slice(prefix.length));
}

describe('log lines: readable on a terminal, JSON lines otherwise or when asked', () => {
  let database: TestDatabase;
  let work: string;
  const started: Running[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('log_format');
    work = await mkdtemp(join(tmpdir(), 'berth-log-format-'));
  });

  afterAll(async () => {
    for (const running of started) await stop(running);
    await database.drop();
    await rm(work, { recursive: true, force: true });
  });

  const masterKey = randomBytes(32).toString('hex');

  /** A data directory of its own for each process, so processes can start side by side. */
  let dataDirs = 0;
  async function dataDir(): Promise<string> {
    dataDirs += 1;
    const dir = join(work, String(dataDirs));
    await mkdir(dir);
    return dir;
  }

  /** The environment of the test process, with Berth's own settings left out but for `env`. */
  function environment(env: Record<string, string>): Record<string, string> {
    const clean: Record<string, string> = {};
    for (const [name, value] of Object.entries(process.env)) {
      if (value !== undefined && !name.startsWith('BERTH_')) clean[name] = value;
    }
    // One master key for every process: they share one database, whose data keys it wraps.
    return {
      ...clean,
      DATABASE_URL: database.url,
      BERTH_API_KEY: 'log-format-key',
      BERTH_MASTER_KEY: masterKey,
      ...env,
    };
  }

  /** The runtime started directly, until it serves; what it wrote by then. */
  async function runtimeOutput(stdout: 'terminal' | 'pipe', env: Record<string, string> = {}) {
    const port = await freePort();
    const running = run(
      RUNTIME,
      [],
      environment({
        BERTH_RUNTIME_PORT: String(port),
        BERTH_GRAPH_CONFIG: GRAPH_CONFIG,
        BERTH_DATA_DIR: await dataDir(),
        ...env,
      }),
      stdout,
    );
    started.push(running);
    await waitForOk(
      'the runtime',
      running.child,
      `http://127.0.0.1:${port}`,
      running.output,
      60_000,
    );
    await stop(running);
    return running.output();
  }

  /** `berth dev` on the example application, until it serves; what it wrote by then. */
  async function devOutput(stdout: 'terminal' | 'pipe', env: Record<string, string> = {}) {
    const port = await freePort();
    const running = run(
      CLI,
      ['dev', resolve('examples/agent'), '--port', String(port), '--no-reload'],
      environment({ BERTH_DATA_DIR: await dataDir(), ...env }),
      stdout,
    );
    started.push(running);
    await waitForOk('berth dev', running.child, `http://127.0.0.1:${port}`, running.output, 90_000);
    await stop(running);
    return running.output();
  }

  it('a server on a terminal writes readable lines', async () => {
    const lines = linesOf(await runtimeOutput('terminal'));
    expect(lines.filter((line) => READABLE.test(line)).length).toBeGreaterThan(0);
    expect(structuredLogLines(lines.join('\n'))).toEqual([]);
  });

  it('a server writing to a pipe, or told BERTH_LOG_FORMAT=json on a terminal, writes JSON lines', async () => {
    // Side by side: each is a process of its own, whose output is all the test reads.
    for (const output of await Promise.all([
      runtimeOutput('pipe'),
      runtimeOutput('terminal', { BERTH_LOG_FORMAT: 'json' }),
      runtimeOutput('terminal', { BERTH_LOG_PRETTY: 'false' }),
    ])) {
      const lines = linesOf(output);
      expect(structuredLogLines(output).length).toBeGreaterThan(0);
      expect(structuredLogLines(output)[0]).toMatchObject({ service: 'berth-runtime' });
      expect(lines.filter((line) => READABLE.test(line))).toEqual([]);
    }
  });

  it("berth dev on a terminal has its runtime write readable lines, though the runtime's stdout is a pipe", async () => {
    const output = await devOutput('terminal');
    const runtime = linesOf(output, '[runtime] ');
    expect(runtime.filter((line) => READABLE.test(line)).length).toBeGreaterThan(0);
    expect(structuredLogLines(runtime.join('\n'))).toEqual([]);
  });

  it('berth dev writing to a pipe, or told BERTH_LOG_FORMAT=json, passes on JSON lines', async () => {
    for (const output of await Promise.all([
      devOutput('pipe'),
      devOutput('terminal', { BERTH_LOG_FORMAT: 'json' }),
    ])) {
      const runtime = linesOf(output, '[runtime] ').join('\n');
      expect(structuredLogLines(runtime).length).toBeGreaterThan(0);
      expect(linesOf(output, '[runtime] ').filter((line) => READABLE.test(line))).toEqual([]);
    }
  });
});
