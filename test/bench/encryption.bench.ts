import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rebuildProjections } from '#libs/persistence';
import { loadStorageConfig } from '../../apps/agent-runtime/src/runtime.config.js';
import { openRuntimePersistence } from '../../apps/agent-runtime/src/runtime-persistence.js';
import { startRuntime } from '../support/runtime-process.js';
import { openBenchDatabase } from './bench-support.js';

/**
 * `npm run bench:encryption`: what encryption at rest costs, measured side by side in one run.
 * For each mode (BERTH_ENCRYPTION=off, then on, as many rounds as BENCH_ENCRYPTION_ROUNDS) a
 * fresh database and runtime: the runtime phase (threads in parallel, runs/wait one after the
 * other on each, runs/s), then the replay phase (every read model rebuilt from zero through the
 * runtime's event store, which opens each event, events/s). The best round of each mode counts.
 */
const THREADS = Math.max(1, Number(process.env.BENCH_ENCRYPTION_THREADS ?? 10));
const RUNS_PER_THREAD = Math.max(1, Number(process.env.BENCH_ENCRYPTION_RUNS ?? 5));
const ROUNDS = Math.max(1, Number(process.env.BENCH_ENCRYPTION_ROUNDS ?? 2));
const REPLAYS = 2;
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

async function replayPhase(env: Record<string, string>): Promise<{ rate: number; events: number }> {
  const persistence = await openRuntimePersistence(loadStorageConfig(env), (error) => {
    console.error(error);
  });
  try {
    let best = 0;
    let events = 0;
    for (let replay = 0; replay < REPLAYS; replay += 1) {
      let replayed = 0;
      const started = performance.now();
      await rebuildProjections(persistence, [], (line) => {
        replayed += Number(/: (\d+) events/.exec(line)?.[1] ?? 0);
      });
      events = replayed;
      best = Math.max(best, replayed / ((performance.now() - started) / 1000));
    }
    return { rate: best, events };
  } finally {
    await persistence.close();
  }
}

async function round(mode: Mode): Promise<Round> {
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
    let runsPerSecond: number;
    try {
      runsPerSecond = await runtimePhase(runtime.url, runtime.apiKey);
    } finally {
      await runtime.stop();
    }
    const replay = await replayPhase(env);
    return { runsPerSecond, replayEventsPerSecond: replay.rate, events: replay.events };
  } finally {
    await database.close();
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
    // caches, this process's JIT for the replay) favours neither.
    const order: readonly Mode[] = index % 2 === 0 ? ['off', 'on'] : ['on', 'off'];
    for (const mode of order) {
      const result = await round(mode);
      rounds[mode].push(result);
      console.log(
        `  round ${index + 1}, encryption ${mode}: ${fixed(result.runsPerSecond)} runs/s; ` +
          `replay ${fixed(result.replayEventsPerSecond)} events/s (${result.events} events)`,
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
