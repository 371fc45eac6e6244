import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { rebuildProjections } from '#libs/persistence';
import { loadStorageConfig } from '../../apps/agent-runtime/src/runtime.config.js';
import { openRuntimePersistence } from '../../apps/agent-runtime/src/runtime-persistence.js';
import { startRuntime } from '../support/runtime-process.js';
import { openBenchDatabase } from './bench-support.js';

/**
 * `npm run bench:encryption`: what encryption at rest costs, measured side by side in one run.
 * Each round fills a fresh database per mode (BERTH_ENCRYPTION=off and on, the first alternating
 * between rounds) through a runtime: the runtime phase (threads in parallel, runs/wait one after
 * the other on each, runs/s). Then the replay phase: every read model of both logs rebuilt from
 * zero through the runtime's event store, which opens each event, the modes taking turns
 * (events projected per second). The best of each mode counts.
 */
const THREADS = Math.max(1, Number(process.env.BENCH_ENCRYPTION_THREADS ?? 20));
const RUNS_PER_THREAD = Math.max(1, Number(process.env.BENCH_ENCRYPTION_RUNS ?? 10));
const ROUNDS = Math.max(1, Number(process.env.BENCH_ENCRYPTION_ROUNDS ?? 2));
const REPLAYS = Math.max(1, Number(process.env.BENCH_ENCRYPTION_REPLAYS ?? 5));
const MASTER_KEY = randomBytes(32).toString('hex');

type Mode = 'off' | 'on';

interface Round {
  readonly runsPerSecond: number;
  readonly replayEventsPerSecond: number;
  readonly events: number;
}

async function post(url: string, apiKey: string, path: string, body: unknown): Promise<unknown> {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

async function runtimePhase(url: string, apiKey: string): Promise<number> {
  const threads = await Promise.all(
    Array.from({ length: THREADS }, async () => {
      const thread = (await post(url, apiKey, '/threads', {
        metadata: { user: 'bench' },
      })) as { thread_id: string };
      return thread.thread_id;
    }),
  );
  const run = (threadId: string, i: number): Promise<unknown> =>
    post(url, apiKey, `/threads/${threadId}/runs/wait`, {
      assistant_id: 'agent',
      input: { messages: [{ role: 'user', content: `Weather in Oslo? (${i})` }] },
    });
  await run(threads[0] ?? '', -1);
  const started = performance.now();
  await Promise.all(
    threads.map(async (threadId) => {
      for (let i = 0; i < RUNS_PER_THREAD; i += 1) await run(threadId, i);
    }),
  );
  return (THREADS * RUNS_PER_THREAD) / ((performance.now() - started) / 1000);
}

/** A mode's database after its runtime phase, and the environment a runtime reads it with. */
interface Filled {
  readonly mode: Mode;
  readonly runsPerSecond: number;
  readonly env: Record<string, string>;
  readonly database: Awaited<ReturnType<typeof openBenchDatabase>>;
}

async function fill(mode: Mode): Promise<Filled> {
  const database = await openBenchDatabase(`encryption_${mode}`);
  const env = {
    DATABASE_URL: database.url,
    BERTH_MASTER_KEY: MASTER_KEY,
    BERTH_ENCRYPTION: mode,
    BERTH_DATA_DIR: await mkdtemp(join(tmpdir(), 'berth-bench-encryption-')),
    EVENTSTORE_URL: '',
  };
  try {
    const runtime = await startRuntime({ databaseUrl: database.url, env });
    try {
      return {
        mode,
        runsPerSecond: await runtimePhase(runtime.url, runtime.apiKey),
        env,
        database,
      };
    } finally {
      await runtime.stop();
    }
  } catch (error) {
    await database.close();
    throw error;
  }
}

/**
 * Every read model of both logs rebuilt from zero, the modes taking turns `REPLAYS` times in this
 * one process (so that neither gets the JIT's or the caches' warm-up alone); the best of each.
 */
async function replayPhase(filled: readonly Filled[]): Promise<Map<Mode, number>> {
  const opened = await Promise.all(
    filled.map(async (one) => ({
      mode: one.mode,
      persistence: await openRuntimePersistence(loadStorageConfig(one.env), (error) => {
        console.error(error);
      }),
    })),
  );
  const best = new Map<Mode, number>();
  try {
    for (let replay = 0; replay < REPLAYS; replay += 1) {
      for (const { mode, persistence } of replay % 2 === 0 ? opened : [...opened].reverse()) {
        let replayed = 0;
        const started = performance.now();
        await rebuildProjections(persistence, [], (line) => {
          replayed += Number(/: (\d+) events/.exec(line)?.[1] ?? 0);
        });
        const rate = replayed / ((performance.now() - started) / 1000);
        best.set(mode, Math.max(best.get(mode) ?? 0, rate));
      }
    }
    return best;
  } finally {
    await Promise.all(opened.map(({ persistence }) => persistence.close()));
  }
}

async function round(order: readonly Mode[]): Promise<Record<Mode, Round>> {
  const filled: Filled[] = [];
  try {
    for (const mode of order) filled.push(await fill(mode));
    const replays = await replayPhase(filled);
    const events = await Promise.all(filled.map((one) => eventCount(one.database.url)));
    const result = {} as Record<Mode, Round>;
    filled.forEach((one, index) => {
      result[one.mode] = {
        runsPerSecond: one.runsPerSecond,
        replayEventsPerSecond: replays.get(one.mode) ?? 0,
        events: events[index] ?? 0,
      };
    });
    return result;
  } finally {
    await Promise.all(filled.map((one) => one.database.close()));
  }
}

async function eventCount(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{
      count: string;
      text_bytes: string;
      stored_bytes: string;
    }>(
      `select count(*), sum(octet_length(data::text)) as text_bytes,
              sum(pg_column_size(data)) as stored_bytes from es_events`,
    );
    console.log(
      `    log: ${rows[0]?.count} events, data as text ${rows[0]?.text_bytes} B, stored ${rows[0]?.stored_bytes} B`,
    );
    return Number(rows[0]?.count ?? 0);
  } finally {
    await client.end();
  }
}

const fixed = (value: number): string => value.toFixed(1);
const cost = (off: number, on: number): string => `${(((off - on) / off) * 100).toFixed(1)}%`;
const verdict = (off: number, on: number): string => (on >= 0.9 * off ? 'met' : 'MISSED');

async function main(): Promise<void> {
  console.log(
    `Encryption cost: ${THREADS} threads x ${RUNS_PER_THREAD} runs (runs/wait), then every read ` +
      `model rebuilt from zero (best of ${REPLAYS}); ${ROUNDS} rounds per mode, off and on in turn, the first alternating`,
  );
  const rounds: Record<Mode, Round[]> = { off: [], on: [] };
  for (let index = 0; index < ROUNDS; index += 1) {
    // Each mode goes first in every other round: what warms up (the machine, PostgreSQL's
    // caches) favours neither.
    const order: readonly Mode[] = index % 2 === 0 ? ['off', 'on'] : ['on', 'off'];
    const results = await round(order);
    for (const mode of order) {
      const result = results[mode];
      rounds[mode].push(result);
      console.log(
        `  round ${index + 1}, encryption ${mode}: ${fixed(result.runsPerSecond)} runs/s; ` +
          `replay ${fixed(result.replayEventsPerSecond)} events/s (a log of ${result.events} events)`,
      );
    }
  }
  const best = (mode: Mode, of: (round: Round) => number): number =>
    Math.max(...rounds[mode].map(of));
  const runsOff = best('off', (r) => r.runsPerSecond);
  const runsOn = best('on', (r) => r.runsPerSecond);
  const replayOff = best('off', (r) => r.replayEventsPerSecond);
  const replayOn = best('on', (r) => r.replayEventsPerSecond);
  console.log('| phase   | encryption off | encryption on | on/off | cost  |');
  console.log(
    `| runtime | ${fixed(runsOff)} runs/s | ${fixed(runsOn)} runs/s | ${(runsOn / runsOff).toFixed(3)} | ${cost(runsOff, runsOn)} |`,
  );
  console.log(
    `| replay  | ${fixed(replayOff)} events/s | ${fixed(replayOn)} events/s | ${(replayOn / replayOff).toFixed(3)} | ${cost(replayOff, replayOn)} |`,
  );
  console.log(
    `Goal: encryption costs at most 10% of runs/s: ${verdict(runsOff, runsOn)}; ` +
      `and of the replay rate: ${verdict(replayOff, replayOn)}`,
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(1);
});
