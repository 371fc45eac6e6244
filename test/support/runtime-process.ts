import { readableLogs, structuredLogLines } from './readable-logs.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter, once } from 'node:events';
import { resolve } from 'node:path';
import { freePort } from './free-port.js';
import { waitForOk } from './wait-for-ok.js';
import { within } from './within.js';

export const EXAMPLE_GRAPH_CONFIG = resolve('examples/agent/langgraph.json');
const RUNTIME_MAIN = resolve('dist/apps/agent-runtime/src/main.js');
const START_TIMEOUT_MS = 60_000;

export interface RuntimeProcess {
  readonly url: string;
  readonly apiKey: string;
  readonly port: number;
  /** The process itself (its stdin is a pipe with `stdin: 'pipe'`). */
  readonly child: ChildProcess;
  /** What the process printed, for a failing test's message. */
  output(): string;
  /** Its structured log lines (JSON), parsed. */
  logLines(): Record<string, unknown>[];
  /** Resolves once the process has printed `text` (it may already have). */
  printed(text: string, timeoutMs?: number): Promise<void>;
  /** SIGTERM and wait. */
  stop(): Promise<void>;
  /** SIGKILL and wait: the process gets no chance to clean up. */
  kill(): Promise<void>;
}

export interface RuntimeOptions {
  readonly databaseUrl: string;
  readonly graphConfig?: string;
  readonly apiKey?: string;
  readonly port?: number;
  readonly env?: Readonly<Record<string, string>>;
  /** `pipe` gives the process a stdin pipe (`child.stdin`); `ignore` by default. */
  readonly stdin?: 'ignore' | 'pipe';
}

/**
 * The built agent runtime (`npm test` builds first) as a real process on a real port, on the
 * given database, ready when GET /ok answers.
 */
export async function startRuntime(options: RuntimeOptions): Promise<RuntimeProcess> {
  const port = options.port ?? (await freePort());
  const apiKey = options.apiKey ?? 'test-key-0123456789';
  const child = spawn(process.execPath, [RUNTIME_MAIN], {
    env: {
      ...process.env,
      DATABASE_URL: options.databaseUrl,
      BERTH_API_KEY: apiKey,
      BERTH_GRAPH_CONFIG: options.graphConfig ?? EXAMPLE_GRAPH_CONFIG,
      BERTH_RUNTIME_PORT: String(port),
      BERTH_HOST: '127.0.0.1',
      ...options.env,
    },
    stdio: [options.stdin ?? 'ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const printedMore = new EventEmitter();
  const collect = (chunk: Buffer): void => {
    output += chunk.toString();
    printedMore.emit('data');
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const url = `http://127.0.0.1:${port}`;
  await waitForOk('The runtime', child, url, () => readableLogs(output), START_TIMEOUT_MS);
  const exited = (): Promise<unknown> =>
    child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : once(child, 'exit');
  return {
    url,
    apiKey,
    port,
    child,
    output: () => readableLogs(output),
    logLines: () => structuredLogLines(output),
    printed: (text, timeoutMs = 10_000) =>
      within(
        new Promise<void>((done) => {
          const check = (): void => {
            if (!readableLogs(output).includes(text)) return;
            printedMore.off('data', check);
            done();
          };
          printedMore.on('data', check);
          check();
        }),
        timeoutMs,
        `The runtime did not print ${JSON.stringify(text)}`,
      ),
    stop: async () => {
      const done = exited();
      child.kill('SIGTERM');
      await done;
    },
    kill: async () => {
      const done = exited();
      child.kill('SIGKILL');
      await done;
    },
  };
}
