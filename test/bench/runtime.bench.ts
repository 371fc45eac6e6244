import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import {
  loadJailSettings,
  runtimeHeapMegabytes,
} from '../../apps/control-plane/src/isolation/jail-settings.js';
import { measureInProcessLangGraph } from './in-process-langgraph.js';
import { projectionDelayRows, readProjectionDelays } from './projection-delay.js';
import {
  EXAMPLE_GRAPH_CONFIG,
  startRuntime,
  type RuntimeProcess,
} from '../support/runtime-process.js';
import {
  interleaved,
  latencyRows,
  millis,
  openBenchDatabase,
  percentile,
  printTable,
  rate,
  speedUp,
  type BenchDatabase,
  type Row,
} from './bench-support.js';
import {
  createThread,
  deadline,
  everything,
  field,
  json,
  post,
  REQUEST_TIMEOUT_MS,
  stringField,
  type Target,
} from './bench-http.js';
import { startReferenceServer, type ReferenceServer } from './reference-server.js';
import { costPerRun, idleRates, sampleCost } from './run-cost.js';
import { loadGoal, waitLoad, type WaitLoad } from './load.bench-phase.js';
import { scaleOutBench } from './scale-out.bench-phase.js';
import { storeBench, type StoreBenchResult } from './store.bench-phase.js';
import { streamingV2Bench } from './streaming-v2.bench-phase.js';
import { growingThreadBench } from './growing-thread.bench-phase.js';
import { agentsPhase, type AgentsWay } from './agents.bench-phase.js';
import { DEFAULT_TIMING } from './agents-app/src/model-timing.js';
import {
  COLLECTS_ON_SIGNAL,
  collectingNodeOptions,
  printSoakTable,
  SNAPSHOT_REQUEST,
  soakBench,
} from './soak.bench-phase.js';

/** Scales every sequential phase; the default keeps the whole run within about three minutes. */
const ITERATIONS = Math.max(10, Number(process.env.BENCH_ITERATIONS ?? 80));
const STREAM_ITERATIONS = Math.max(10, Math.round(ITERATIONS / 2));
/** Runs of each of the five ways of the streaming v2 phase: about 50 s on 2 busy cores. */
const V2_ITERATIONS = Math.max(10, Math.round((ITERATIONS * 3) / 8));
const WARM_UP = Math.max(3, Math.round(ITERATIONS / 20));
const PARALLEL_THREADS = 20;
const RUNS_PER_THREAD = 5;
/** Clients of the load phase, each running runs/wait on a thread of its own, for this long. */
const LOAD_CLIENTS = 50;
const LOAD_SECONDS = Math.max(5, Number(process.env.BENCH_LOAD_SECONDS ?? 20));
/** The load's p99 must stay under this many times one client's create+join p50. */
const LOAD_P99_BOUND = 10;
const LONG_STREAM_STEPS = 10_000;
/** The resume starts after the 5,000th event of the long stream. */
const RESUME_AFTER_EVENT = 5_000;
const RESUME_REPEATS = 3;
const LONG_STREAM_TIMEOUT_MS = 120_000;
const RESUME_TIMEOUT_MS = 60_000;
/** The whole benchmark gives up after this, stopping both servers. */
const BENCH_TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_MS ?? 900_000);
const SERVER_STOP_TIMEOUT_MS = 15_000;
/** The pause after the reference's turn in a phase. */
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 5_000);

/**
 * The phases to run (`BENCH_PHASES`, comma-separated): `comparison` (Berth against the reference
 * server and in-process LangGraph), `streaming-v2` (thread streaming v2 against Berth's classic
 * stream and the reference server's v2), `soak`, `store` (the store's puts and searches; part
 * of `comparison` too), and `agents` (many streaming agents at once, on servers of its own). All
 * but `agents` by default.
 */
const PHASES = benchPhases(process.env.BENCH_PHASES);
/** The agents phase: this many runs at once; the reference takes its turn unless `off`. */
const AGENTS_RUNS = Math.max(1, Number(process.env.BENCH_AGENTS_RUNS ?? 1_000));
const AGENTS_REFERENCE = process.env.BENCH_AGENTS_REFERENCE !== 'off';
/** Its second pass, thread streaming v2 over a WebSocket, unless `BENCH_AGENTS_V2=off`. */
const AGENTS_WAYS: readonly AgentsWay[] =
  process.env.BENCH_AGENTS_V2 === 'off' ? ['classic'] : ['classic', 'v2'];
/**
 * The soak: this many runs/wait over SOAK_THREADS threads, about 60 to 90 s on a 2-core machine
 * (the runs slow down as the threads' conversations grow), sampled every SOAK_SAMPLE_SECONDS.
 */
const SOAK_RUNS = Math.max(100, Number(process.env.BENCH_SOAK_RUNS ?? 2_500));
const SOAK_THREADS = 100;
/** Where the soak writes the runtime's heap snapshots (after 1,000 runs and the last), if set. */
const SNAPSHOT_DIR = process.env.BENCH_HEAP_SNAPSHOTS
  ? resolve(process.env.BENCH_HEAP_SNAPSHOTS)
  : undefined;
const SOAK_SAMPLE_SECONDS = 10;
const SOAK_IDLE_SECONDS = 10;

const APP_DIR = resolve('examples/agent');
const QUESTION = { messages: [{ role: 'user', content: 'What is the weather in Oslo?' }] };
/** The agent's answer to QUESTION: the human message, the tool call, its result, the answer. */
function checkAnswer(target: Target, values: unknown): void {
  const messages = field(values, 'messages');
  const last: unknown = Array.isArray(messages) ? messages.at(-1) : undefined;
  const content = field(last, 'content');
  if (
    !Array.isArray(messages) ||
    messages.length !== 4 ||
    typeof content !== 'string' ||
    !content.includes('Oslo')
  ) {
    throw new Error(
      `${target.name}: unexpected run result ${JSON.stringify(values).slice(0, 500)}`,
    );
  }
}

interface SseTally {
  events: number;
  readonly names: Map<string, number>;
  readonly ids: (string | undefined)[];
  readonly errors: string[];
}

interface StreamResult {
  readonly status: number;
  readonly headers: Headers;
  /** From sending the request to the first chunk of the body. */
  readonly firstByteMs: number;
  /** From sending the request to the end of the body. */
  readonly totalMs: number;
  readonly tally: SseTally;
}

/** Sends a request and reads its SSE body to the end, counting events (and keeping their ids). */
async function timeStream(
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string },
  options: { keepIds: boolean; timeoutMs: number },
): Promise<StreamResult> {
  const started = performance.now();
  const response = await fetch(url, { ...init, signal: deadline(options.timeoutMs) });
  const tally: SseTally = { events: 0, names: new Map(), ids: [], errors: [] };
  if (!response.ok || !response.body) {
    const text = await response.text().catch(() => '');
    if (text) tally.errors.push(text.slice(0, 300));
    const elapsed = performance.now() - started;
    return {
      status: response.status,
      headers: response.headers,
      firstByteMs: elapsed,
      totalMs: elapsed,
      tally,
    };
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let firstByteMs = Number.NaN;
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (Number.isNaN(firstByteMs)) firstByteMs = performance.now() - started;
      buffer += value.includes('\r') ? value.replace(/\r\n?/g, '\n') : value;
      let blank = buffer.indexOf('\n\n');
      while (blank !== -1) {
        countBlock(buffer.slice(0, blank), tally, options.keepIds);
        buffer = buffer.slice(blank + 2);
        blank = buffer.indexOf('\n\n');
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  if (buffer.trim()) countBlock(buffer, tally, options.keepIds);
  return {
    status: response.status,
    headers: response.headers,
    firstByteMs,
    totalMs: performance.now() - started,
    tally,
  };
}

function countBlock(block: string, tally: SseTally, keepIds: boolean): void {
  let name: string | undefined;
  let id: string | undefined;
  let data = '';
  for (const line of block.split('\n')) {
    if (line.startsWith('event:')) name = line.slice(6).trim();
    else if (line.startsWith('id:')) id = line.slice(3).trim();
    else if (line.startsWith('data:') && name === 'error') data += line.slice(5).trim();
  }
  if (name === undefined) return;
  tally.events += 1;
  tally.names.set(name, (tally.names.get(name) ?? 0) + 1);
  if (keepIds) tally.ids.push(id);
  if (name === 'error') tally.errors.push(data.slice(0, 300));
}

/** 1. POST /threads/{id}/runs then GET .../join, on a fresh thread: one sample. */
async function createAndJoin(target: Target): Promise<number> {
  const threadId = await createThread(target);
  const started = performance.now();
  const run = await json(
    await post(target, `/threads/${threadId}/runs`, { assistant_id: 'agent', input: QUESTION }),
    `${target.name} POST /threads/{id}/runs`,
  );
  const runId = stringField(run, 'run_id', `${target.name} POST /threads/{id}/runs`);
  const joined = await json(
    await fetch(`${target.url}/threads/${threadId}/runs/${runId}/join`, {
      headers: target.headers,
      signal: deadline(REQUEST_TIMEOUT_MS),
    }),
    `${target.name} GET /threads/{id}/runs/{run}/join`,
  );
  const elapsed = performance.now() - started;
  checkAnswer(target, joined);
  return elapsed;
}

interface StreamSample {
  readonly firstByte: number;
  readonly total: number;
  readonly events: number;
}

/** 2 and 3. POST /threads/{id}/runs/stream (values + messages-tuple), read to the end. */
async function streamedRun(target: Target): Promise<StreamSample> {
  const threadId = await createThread(target);
  const result = await timeStream(
    `${target.url}/threads/${threadId}/runs/stream`,
    {
      method: 'POST',
      headers: { ...target.headers, 'content-type': 'application/json' },
      body: JSON.stringify({
        assistant_id: 'agent',
        input: QUESTION,
        stream_mode: ['values', 'messages-tuple'],
      }),
    },
    { keepIds: false, timeoutMs: REQUEST_TIMEOUT_MS },
  );
  const { tally } = result;
  if (
    result.status !== 200 ||
    tally.errors.length > 0 ||
    !tally.names.has('values') ||
    !tally.names.has('messages')
  ) {
    throw new Error(
      `${target.name}: streamed run gave HTTP ${result.status}, events ${JSON.stringify([...tally.names])}, ` +
        `errors ${JSON.stringify(tally.errors)}`,
    );
  }
  return { firstByte: result.firstByteMs, total: result.totalMs, events: tally.events };
}

interface ThreadOpsSample {
  readonly create: number;
  readonly updateState: number;
  readonly copy: number;
}

/** A thread that has had a run of `custom`: what the state updates and copies start from. */
async function threadWithHistory(target: Target): Promise<string> {
  const threadId = await createThread(target);
  await json(
    await post(target, `/threads/${threadId}/runs/wait`, {
      assistant_id: 'custom',
      input: { steps: 3 },
    }),
    `${target.name} POST /threads/{id}/runs/wait`,
  );
  return threadId;
}

/** 6. POST /threads, POST /threads/{id}/state (as a node) and POST /threads/{id}/copy, each timed. */
function threadOps(prepared: ReadonlyMap<string, string>) {
  return async (target: Target): Promise<ThreadOpsSample> => {
    const threadId = prepared.get(target.name) ?? '';
    const timed = async (path: string, body: unknown): Promise<number> => {
      const started = performance.now();
      await json(await post(target, path, body), `${target.name} POST ${path}`);
      return performance.now() - started;
    };
    return {
      create: await timed('/threads', {}),
      updateState: await timed(`/threads/${threadId}/state`, {
        values: { total: Math.round(Math.random() * 1000) },
        as_node: 'count',
      }),
      copy: await timed(`/threads/${threadId}/copy`, {}),
    };
  };
}

/** 4. 20 threads in parallel, each with 5 runs one after the other (POST .../runs/wait). */
async function parallelRuns(target: Target): Promise<number> {
  const threads = await Promise.all(
    Array.from({ length: PARALLEL_THREADS }, () => createThread(target)),
  );
  const started = performance.now();
  await Promise.all(
    threads.map(async (threadId) => {
      for (let i = 0; i < RUNS_PER_THREAD; i += 1) {
        const values = await waitForAgentRun(target, threadId);
        const messages = field(values, 'messages');
        // Each run adds its 4 messages to the thread's.
        if (!Array.isArray(messages) || messages.length !== 4 * (i + 1)) {
          throw new Error(
            `${target.name}: unexpected wait result ${JSON.stringify(values).slice(0, 300)}`,
          );
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return (PARALLEL_THREADS * RUNS_PER_THREAD) / seconds;
}

/** The thread's values after one agent run on it (POST .../runs/wait). */
async function waitForAgentRun(target: Target, threadId: string): Promise<unknown> {
  return json(
    await post(target, `/threads/${threadId}/runs/wait`, {
      assistant_id: 'agent',
      input: QUESTION,
    }),
    `${target.name} POST /threads/{id}/runs/wait`,
  );
}

/** One agent run to its end on a thread that may hold earlier runs' messages. */
async function runToItsEnd(target: Target, threadId: string): Promise<void> {
  const values = await waitForAgentRun(target, threadId);
  const messages = field(values, 'messages');
  const last: unknown = Array.isArray(messages) ? messages.at(-1) : undefined;
  const content = field(last, 'content');
  if (typeof content !== 'string' || !content.includes('Oslo')) {
    throw new Error(
      `${target.name}: unexpected wait result ${JSON.stringify(values).slice(0, 300)}`,
    );
  }
}

function loadRows(berth: WaitLoad, peer: WaitLoad): Row[] {
  const label = `${LOAD_CLIENTS} concurrent runs/wait clients for ${LOAD_SECONDS} s`;
  return [
    {
      metric: `${label}: runs/s`,
      berth: rate(berth.runs / berth.seconds),
      peer: rate(peer.runs / peer.seconds),
      ratio: speedUp(berth.runs / berth.seconds, peer.runs / peer.seconds, false),
    },
    ...latencyRows(`${label}: run`, berth.latencies, peer.latencies, [50, 99]),
    {
      metric: `${label}: failed runs`,
      berth: String(berth.errors),
      peer: String(peer.errors),
      ratio: '',
    },
  ];
}

interface ResumeOutcome {
  /** The live stream of the whole run. */
  readonly live: StreamResult;
  readonly runId: string;
  /** Each resume from the middle, or why there was none. */
  readonly resumes: StreamResult[];
  readonly failure: string | undefined;
}

/** 5. custom {steps: 10000} streamed to its end, then resumed from its 5,000th event. */
async function resumeLongStream(target: Target): Promise<ResumeOutcome> {
  const threadId = await createThread(target);
  const live = await timeStream(
    `${target.url}/threads/${threadId}/runs/stream`,
    {
      method: 'POST',
      headers: { ...target.headers, 'content-type': 'application/json' },
      body: JSON.stringify({
        assistant_id: 'custom',
        input: { steps: LONG_STREAM_STEPS },
        stream_mode: ['custom'],
        // The reference keeps a run's events for a later reader only when asked to.
        stream_resumable: true,
      }),
    },
    { keepIds: true, timeoutMs: LONG_STREAM_TIMEOUT_MS },
  );
  const location = live.headers.get('content-location') ?? '';
  const runId = location.split('/').at(-1) ?? '';
  if (live.status !== 200 || !runId || live.tally.errors.length > 0) {
    throw new Error(
      `${target.name}: the ${LONG_STREAM_STEPS}-step run gave HTTP ${live.status}, ` +
        `content-location "${location}", errors ${JSON.stringify(live.tally.errors)}`,
    );
  }
  if (live.tally.events < LONG_STREAM_STEPS) {
    throw new Error(`${target.name}: the long run streamed only ${live.tally.events} events`);
  }
  const lastEventId = live.tally.ids[RESUME_AFTER_EVENT - 1];
  if (lastEventId === undefined) {
    return { live, runId, resumes: [], failure: `event ${RESUME_AFTER_EVENT} has no id` };
  }
  const resumes: StreamResult[] = [];
  for (let i = 0; i < RESUME_REPEATS; i += 1) {
    let resumed: StreamResult;
    try {
      resumed = await timeStream(
        `${target.url}/threads/${threadId}/runs/${runId}/stream`,
        { method: 'GET', headers: { ...target.headers, 'last-event-id': lastEventId } },
        { keepIds: false, timeoutMs: RESUME_TIMEOUT_MS },
      );
    } catch (error) {
      return {
        live,
        runId,
        resumes,
        failure: error instanceof Error ? error.message : String(error),
      };
    }
    if (resumed.status !== 200) {
      return { live, runId, resumes, failure: `HTTP ${resumed.status}` };
    }
    if (resumed.tally.events === 0) {
      return { live, runId, resumes, failure: 'no events' };
    }
    resumes.push(resumed);
  }
  return { live, runId, resumes, failure: undefined };
}

async function durableSteps(database: BenchDatabase, runId: string): Promise<number> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ count: number }>(
      `select count(*)::int as count from es_events where stream_id = $1 and event_type = 'RunStepEmitted'`,
      [`run-${runId}`],
    );
    return rows[0]?.count ?? 0;
  } finally {
    await client.end();
  }
}

/** The runtime's own count of its statements and commits (`/metrics`). */
async function databaseWorkOf(
  target: Target,
): Promise<{ statements: number; transactions: number }> {
  const response = await fetch(`${target.url}/metrics`, { headers: target.headers });
  const text = await response.text();
  const valueOf = (name: string): number =>
    Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
  return {
    statements: valueOf('berth_database_statements_total'),
    transactions: valueOf('berth_database_transactions_total'),
  };
}

function count(value: number): string {
  return value.toLocaleString('en-US');
}

function resumeRow(berth: ResumeOutcome, peer: ResumeOutcome): Row[] {
  const time = (outcome: ResumeOutcome): number =>
    percentile(
      outcome.resumes.map((r) => r.totalMs),
      50,
    );
  const shown = (outcome: ResumeOutcome): string =>
    outcome.failure !== undefined && outcome.resumes.length === 0
      ? outcome.failure
      : millis(time(outcome));
  const events = (outcome: ResumeOutcome): string =>
    outcome.resumes.length === 0
      ? '-'
      : outcome.resumes.map((r) => count(r.tally.events)).join('/');
  const comparable = berth.resumes.length > 0 && peer.resumes.length > 0;
  return [
    {
      metric: `${count(LONG_STREAM_STEPS)}-step run streamed live, to its end (${count(berth.live.tally.events)} / ${count(peer.live.tally.events)} events)`,
      berth: millis(berth.live.totalMs),
      peer: millis(peer.live.totalMs),
      ratio: speedUp(berth.live.totalMs, peer.live.totalMs, true),
    },
    {
      metric: `resume after event ${count(RESUME_AFTER_EVENT)} of the ended run, to the end p50`,
      berth: shown(berth),
      peer: shown(peer),
      ratio: comparable ? speedUp(time(berth), time(peer), true) : '-',
    },
    {
      metric: `  events received by each of ${RESUME_REPEATS} resumes`,
      berth: events(berth),
      peer: events(peer),
      ratio: '',
    },
  ];
}

async function eachTarget<T>(
  label: string,
  targets: readonly [Target, Target],
  measure: (target: Target) => Promise<T>,
  settleAfter = true,
): Promise<[T, T]> {
  const results: T[] = [];
  for (const target of targets) {
    const started = performance.now();
    results.push(await measure(target));
    console.log(
      `  ${label}: ${target.name} done in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    // The reference writes its whole store to disk 3 s after its last request: that must not
    // fall into Berth's next turn.
    if (settleAfter && target === targets[1]) await settle();
  }
  if (results.length !== 2) throw new Error(`${label}: missing result`);
  return results as [T, T];
}

async function warmUp(target: Target): Promise<void> {
  for (let i = 0; i < WARM_UP; i += 1) {
    await createAndJoin(target);
    await streamedRun(target);
  }
  const threadId = await createThread(target);
  await json(
    await post(target, `/threads/${threadId}/runs/wait`, {
      assistant_id: 'custom',
      input: { steps: 100 },
    }),
    `${target.name} warm-up of custom`,
  );
}

function streamSamples(samples: readonly StreamSample[]): {
  firstByte: number[];
  total: number[];
  events: number;
} {
  return {
    firstByte: samples.map((sample) => sample.firstByte),
    total: samples.map((sample) => sample.total),
    events: samples.at(-1)?.events ?? 0,
  };
}

function settle(): Promise<void> {
  return new Promise((done) => setTimeout(done, SETTLE_MS));
}

function load(): string {
  return `load average ${loadavg()
    .map((value) => value.toFixed(2))
    .join(' ')}`;
}

function errorLines(output: string): string[] {
  return output
    .split('\n')
    .filter((line) => /\berror\b|exception|unhandled/i.test(line))
    .slice(0, 10);
}

async function stopRuntime(runtime: RuntimeProcess): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const gaveUp = new Promise<boolean>((done) => {
    timer = setTimeout(() => {
      done(false);
    }, SERVER_STOP_TIMEOUT_MS);
  });
  const stopped = await Promise.race([runtime.stop().then(() => true), gaveUp]);
  clearTimeout(timer);
  if (!stopped) {
    console.error(`The Berth runtime did not stop within ${SERVER_STOP_TIMEOUT_MS} ms: killed`);
    await runtime.kill();
  }
}

function benchPhases(value: string | undefined): ReadonlySet<string> {
  const known = ['comparison', 'streaming-v2', 'soak', 'store', 'agents'];
  const asked = (value ?? '')
    .split(',')
    .map((phase) => phase.trim())
    .filter((phase) => phase !== '');
  for (const phase of asked) {
    if (!known.includes(phase)) {
      throw new Error(`BENCH_PHASES: no phase "${phase}" (there are ${known.join(', ')})`);
    }
  }
  return new Set(asked.length > 0 ? asked : known.filter((phase) => phase !== 'agents'));
}

/** The store's goals, its semantic queries each against LangGraph's InMemoryStore. */
function storeGoals(store: StoreBenchResult): string {
  const verdict = (met: boolean): string => (met ? 'met' : 'MISSED');
  const [put, putPeer] = store.putP50;
  const [search, searchPeer] = store.searchP50;
  const [semantic, semanticPeer] = store.semanticP50;
  const [pgvector, pgvectorPeer] = store.pgvectorP50;
  return (
    `Goal: store put p50 within 3x of the in-memory reference: ${millis(put)} vs ${millis(putPeer)}` +
    ` (${(put / putPeer).toFixed(2)}x): ${verdict(put <= 3 * putPeer)}` +
    `; filtered search faster than it: ${millis(search)} vs ${millis(searchPeer)}: ${verdict(search < searchPeer)}` +
    `; semantic query ${millis(semantic)} vs ${millis(semanticPeer)}: ${verdict(semantic < semanticPeer)}` +
    ` (similarity: ${store.vectorSearch}).` +
    `\nGoal: semantic query on pgvector (HNSW, PGlite) within 2x of the InMemoryStore: ` +
    `${millis(pgvector)} vs ${millis(pgvectorPeer)} (${(pgvector / pgvectorPeer).toFixed(2)}x): ` +
    `${verdict(pgvector <= 2 * pgvectorPeer)} (its HNSW index walked ${store.pgvectorIndexScans} times in ${ITERATIONS} queries)`
  );
}

/** The store alone (`BENCH_PHASES=store`): test/bench/store.bench-phase.ts. */
async function storePhase(reference: ReferenceServer): Promise<void> {
  console.log(
    `Store benchmark: Berth against the reference in-memory server, langgraphjs dev ` +
      `${reference.version} (${reference.url}), and LangGraph's InMemoryStore; Node ${process.version}; ${load()}`,
  );
  const started = performance.now();
  const store = await storeBench(
    { name: 'reference', url: reference.url, headers: {} },
    ITERATIONS,
  );
  console.log(`  store: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  printTable('Store', 'reference', store.rows);
  console.log(`\n${storeGoals(store)}`);
}

/**
 * The soak: many runs over 100 threads while the runtime's resident size and heap are sampled
 * (test/bench/soak.bench-phase.ts). Alone, it warms Berth up first.
 */
async function soakPhase(runtime: RuntimeProcess, berth: Target, alone: boolean): Promise<void> {
  if (alone) {
    console.log(
      `Agent runtime soak: Berth (${runtime.url}) serving ${EXAMPLE_GRAPH_CONFIG}; ` +
        `Node ${process.version}; ${load()}`,
    );
    await warmUp(berth);
  }
  const started = performance.now();
  const delaysBefore = await readProjectionDelays(berth);
  const soak = await soakBench({
    runs: SOAK_RUNS,
    threads: SOAK_THREADS,
    runtime: runtime.child,
    collects: runtime.output().includes(COLLECTS_ON_SIGNAL),
    sampleEverySeconds: SOAK_SAMPLE_SECONDS,
    snapshotDir: SNAPSHOT_DIR,
    idleSeconds: SOAK_IDLE_SECONDS,
    newThread: () => createThread(berth),
    runOnce: (threadId) => runToItsEnd(berth, threadId),
  });
  console.log(
    `  soak: ${((performance.now() - started) / 1000).toFixed(1)} s (runs for ${soak.seconds.toFixed(1)} s, then ${SOAK_IDLE_SECONDS} s idle)`,
  );
  printSoakTable(
    soak,
    `Soak: ${SOAK_RUNS.toLocaleString('en-US')} runs/wait (agent) over ${SOAK_THREADS} threads, ` +
      `each thread's runs one after the other; Berth's runtime process every ${SOAK_SAMPLE_SECONDS} s, ` +
      `checkpoint cache ${process.env.BERTH_CHECKPOINT_CACHE_MB ? `${process.env.BERTH_CHECKPOINT_CACHE_MB} MB` : 'at its default'} ` +
      `(${load()})`,
  );
  if (soak.firstError !== undefined) {
    console.log(`  first failed run: ${soak.firstError.slice(0, 300)}`);
  }
  const delays = projectionDelayRows('soak', delaysBefore, await readProjectionDelays(berth));
  for (const row of delays) console.log(`${row.metric}   ${row.berth}`);
}

/**
 * Thread streaming v2 (test/bench/streaming-v2.bench-phase.ts): first-event and whole-run times
 * of a streamed agent run, against Berth's classic stream and the reference server's v2.
 */
async function streamingV2Phase(
  runtime: RuntimeProcess,
  reference: ReferenceServer,
  berth: Target,
  alone: boolean,
): Promise<void> {
  if (alone) {
    console.log(
      `Thread streaming v2 benchmark: Berth (${runtime.url}) vs langgraphjs dev ${reference.version} ` +
        `(${reference.url}), both serving ${EXAMPLE_GRAPH_CONFIG}; Node ${process.version}; ${load()}`,
    );
  } else {
    await settle();
  }
  const started = performance.now();
  await streamingV2Bench({
    berth,
    jsServer: { name: 'reference', url: reference.url, headers: {} },
    jsServerName: `JS server v2 (langgraphjs dev ${reference.version})`,
    assistantId: 'agent',
    input: QUESTION,
    iterations: V2_ITERATIONS,
    warmUp: WARM_UP,
  });
  console.log(
    `  streaming v2: ${((performance.now() - started) / 1000).toFixed(1)} s in all; ${load()}`,
  );
}

/** Every phase that compares Berth with the reference server (and with LangGraph in process). */
async function comparisonPhases(
  database: BenchDatabase,
  runtime: RuntimeProcess,
  reference: ReferenceServer,
  berth: Target,
): Promise<void> {
  const peer: Target = { name: 'reference', url: reference.url, headers: {} };
  const targets = [berth, peer] as const;
  console.log(
    `Agent runtime benchmark: Berth (${runtime.url}, on ${database.where}) vs the reference ` +
      `in-memory server, langgraphjs dev ${reference.version} (${reference.url}), both serving ` +
      `${EXAMPLE_GRAPH_CONFIG}; Node ${process.version}; ${ITERATIONS} create+join iterations, ` +
      `${STREAM_ITERATIONS} streamed runs, ${WARM_UP} warm-up iterations per kind; ${load()}`,
  );

  await eachTarget('warm-up', targets, warmUp);
  const [joinBerth, joinPeer] = await interleaved(
    'create+join',
    targets,
    ITERATIONS,
    createAndJoin,
  );
  const [streamsBerth, streamsPeer] = await interleaved(
    'streamed runs',
    targets,
    STREAM_ITERATIONS,
    streamedRun,
  );
  const streamBerth = streamSamples(streamsBerth);
  const streamPeer = streamSamples(streamsPeer);
  await settle();
  const [parallelBerth, parallelPeer] = await eachTarget('parallel runs', targets, parallelRuns);
  const delaysBeforeLoad = await readProjectionDelays(berth);
  const [loadBerth, loadPeer] = await eachTarget('load', targets, (target) =>
    waitLoad(target, {
      clients: LOAD_CLIENTS,
      durationMs: LOAD_SECONDS * 1_000,
      newThread: createThread,
      runOnce: runToItsEnd,
    }),
  );
  const loadDelays = projectionDelayRows(
    `load, ${LOAD_CLIENTS} clients`,
    delaysBeforeLoad,
    await readProjectionDelays(berth),
  );
  const [resumeBerth, resumePeer] = await eachTarget(
    '10k-event stream',
    targets,
    resumeLongStream,
    false,
  );
  const durable = await durableSteps(database, resumeBerth.runId);
  const prepared = new Map<string, string>();
  for (const target of targets) prepared.set(target.name, await threadWithHistory(target));
  const [opsBerth, opsPeer] = await interleaved(
    'thread operations',
    targets,
    ITERATIONS,
    threadOps(prepared),
  );
  const opRows = (['create', 'updateState', 'copy'] as const).flatMap((op) =>
    latencyRows(
      {
        create: 'POST /threads',
        updateState: 'POST /threads/{id}/state (as_node)',
        copy: 'POST /threads/{id}/copy',
      }[op],
      opsBerth.map((sample) => sample[op]),
      opsPeer.map((sample) => sample[op]),
      [50],
    ),
  );

  // What one run costs Berth: its CPU, and the transactions its database commits.
  await settle();
  const pid = runtime.child.pid ?? 0;
  const idle = await idleRates(pid, database.url, 3_000);
  const costBefore = await sampleCost(pid, database.url);
  const workBefore = await databaseWorkOf(berth);
  await parallelRuns(berth);
  const workAfter = await databaseWorkOf(berth);
  await new Promise((done) => setTimeout(done, 1_500));
  const cost = costPerRun(
    costBefore,
    await sampleCost(pid, database.url),
    PARALLEL_THREADS * RUNS_PER_THREAD,
    idle,
  );
  const runsMeasured = PARALLEL_THREADS * RUNS_PER_THREAD;
  const statementsPerRun = (workAfter.statements - workBefore.statements) / runsMeasured;
  const commitsPerRun = (workAfter.transactions - workBefore.transactions) / runsMeasured;
  const inProcessStarted = performance.now();
  const inProcess = await measureInProcessLangGraph({
    input: QUESTION,
    threads: PARALLEL_THREADS,
    runsPerThread: RUNS_PER_THREAD,
    samples: ITERATIONS,
  });
  console.log(
    `  in-process LangGraph: ${((performance.now() - inProcessStarted) / 1000).toFixed(1)} s (the example's graph with MemorySaver, in this process)`,
  );
  const growingStarted = performance.now();
  const growingRows = await growingThreadBench({
    databaseUrl: database.url,
    input: QUESTION,
    newThread: () => createThread(berth),
    runOnce: (threadId) => runToItsEnd(berth, threadId),
  });
  console.log(
    `  growing thread: ${((performance.now() - growingStarted) / 1000).toFixed(1)} s (Berth, then the same runs in this process)`,
  );
  const scaleStarted = performance.now();
  const scale = await scaleOutBench(parallelRuns);
  console.log(
    `  scale-out: ${((performance.now() - scaleStarted) / 1000).toFixed(1)} s (an API process and 1, then 2, worker processes on one database)`,
  );
  const storeStarted = performance.now();
  const store = await storeBench(peer, ITERATIONS);
  console.log(
    `  store: ${((performance.now() - storeStarted) / 1000).toFixed(1)} s (a second Berth runtime serving the store with store.index)`,
  );

  const rows: Row[] = [
    ...latencyRows('create run + join (agent)', joinBerth, joinPeer, [50, 90]),
    ...latencyRows(
      'POST runs/stream: first SSE byte',
      streamBerth.firstByte,
      streamPeer.firstByte,
      [50, 90],
    ),
    ...latencyRows(
      `streamed run (values+messages-tuple, ${streamBerth.events}/${streamPeer.events} events) to its end`,
      streamBerth.total,
      streamPeer.total,
      [50],
    ),
    {
      metric: `runs/s, ${PARALLEL_THREADS} threads x ${RUNS_PER_THREAD} runs (runs/wait)`,
      berth: rate(parallelBerth),
      peer: rate(parallelPeer),
      ratio: speedUp(parallelBerth, parallelPeer, false),
    },
    {
      metric: 'per run (runs/wait, agent): runtime CPU ms, idle subtracted',
      berth: millis(cost.cpuMs),
      peer: '-',
      ratio: '',
    },
    {
      metric: 'per run: transactions committed (pg_stat_database, idle subtracted)',
      berth: cost.transactions.toFixed(1),
      peer: '-',
      ratio: '',
    },
    {
      metric: 'per run: transactions committed (counted in the runtime)',
      berth: commitsPerRun.toFixed(1),
      peer: '-',
      ratio: '',
    },
    {
      metric: 'per run: SQL statements sent (counted in the runtime)',
      berth: statementsPerRun.toFixed(1),
      peer: '-',
      ratio: '',
    },
    ...loadRows(loadBerth, loadPeer),
    ...loadDelays,
    ...scale.rows,
    ...resumeRow(resumeBerth, resumePeer),
    ...opRows,
    ...store.rows,
  ];
  printTable(
    'Berth agent runtime vs the reference in-memory server (langgraphjs dev)',
    `reference (langgraphjs dev ${reference.version})`,
    rows,
  );

  const joinP50 = percentile(joinBerth, 50);
  const loaded = loadGoal(loadBerth, joinP50, LOAD_P99_BOUND);
  const refJoinP50 = percentile(joinPeer, 50);
  const firstByteBerthP50 = percentile(streamBerth.firstByte, 50);
  const firstBytePeerP50 = percentile(streamPeer.firstByte, 50);
  printTable(
    'Berth vs LangGraph itself (the same graph in this process: graph.invoke/stream, MemorySaver, nothing durable)',
    'in-process LangGraph',
    [
      {
        metric: `runs/s, ${PARALLEL_THREADS} threads x ${RUNS_PER_THREAD} runs (Berth: runs/wait)`,
        berth: rate(parallelBerth),
        peer: rate(inProcess.runsPerSecond),
        ratio: speedUp(parallelBerth, inProcess.runsPerSecond, false),
      },
      {
        metric: '  the reference server, same workload',
        berth: rate(parallelPeer),
        peer: rate(inProcess.runsPerSecond),
        ratio: speedUp(parallelPeer, inProcess.runsPerSecond, false),
      },
      {
        metric: 'one run p50 (Berth: create run + join; in-process: invoke)',
        berth: millis(joinP50),
        peer: millis(inProcess.runP50),
        ratio: speedUp(joinP50, inProcess.runP50, true),
      },
      {
        metric: '  the reference server: create run + join p50',
        berth: millis(refJoinP50),
        peer: millis(inProcess.runP50),
        ratio: speedUp(refJoinP50, inProcess.runP50, true),
      },
      {
        metric: 'first byte p50 (Berth: POST runs/stream; in-process: first chunk)',
        berth: millis(firstByteBerthP50),
        peer: millis(inProcess.firstChunkP50),
        ratio: speedUp(firstByteBerthP50, inProcess.firstChunkP50, true),
      },
      {
        metric: '  the reference server: first SSE byte p50',
        berth: millis(firstBytePeerP50),
        peer: millis(inProcess.firstChunkP50),
        ratio: speedUp(firstBytePeerP50, inProcess.firstChunkP50, true),
      },
      ...growingRows,
    ],
  );
  console.log(
    `Goals against in-process LangGraph: runs/s at 0.5 or more of it: ${(parallelBerth / inProcess.runsPerSecond).toFixed(2)}: ${parallelBerth >= 0.5 * inProcess.runsPerSecond ? 'met' : 'MISSED'}` +
      `; create+join p50 within 3x of one run: ${(joinP50 / inProcess.runP50).toFixed(1)}x: ${joinP50 <= 3 * inProcess.runP50 ? 'met' : 'MISSED'}` +
      `; first byte within 2x of the first chunk: ${(firstByteBerthP50 / inProcess.firstChunkP50).toFixed(1)}x: ${firstByteBerthP50 <= 2 * inProcess.firstChunkP50 ? 'met' : 'MISSED'}`,
  );
  const firstByteP50 = percentile(streamBerth.firstByte, 50);
  const streamed = resumeBerth.live.tally.events;
  const resumedAll = resumeBerth.resumes.every(
    (r) => r.tally.events === streamed - RESUME_AFTER_EVENT,
  );
  const verdict = (met: boolean): string => (met ? 'met' : 'MISSED');
  const opP50 = (op: keyof ThreadOpsSample): number =>
    percentile(
      opsBerth.map((sample) => sample[op]),
      50,
    );
  const withinTwice = (op: keyof ThreadOpsSample): string =>
    `${op} p50 ${millis(opP50(op))} (${(opP50(op) / opP50('create')).toFixed(2)}x POST /threads): ${verdict(opP50(op) <= 2 * opP50('create'))}`;
  console.log(
    '\nRatio: how many times better Berth is: peer / berth for times, berth / peer for rates' +
      ' (above 1 means Berth is faster).' +
      '\nGoals: create+join p50 < 25 ms, first byte < 10 ms, parallel runs/s >= 10x the reference, every event durable' +
      `\n  create+join p50 ${millis(joinP50)}: ${verdict(joinP50 < 25)}` +
      `; first byte p50 ${millis(firstByteP50)}: ${verdict(firstByteP50 < 10)}` +
      `; parallel ${(parallelBerth / parallelPeer).toFixed(2)}x: ${verdict(parallelBerth >= 10 * parallelPeer)}` +
      `; durable ${count(durable)} of ${count(streamed)}: ${verdict(durable === streamed && resumedAll)}` +
      `\nGoal: ${LOAD_CLIENTS} concurrent runs/wait clients, p99 under ${LOAD_P99_BOUND}x one client's create+join p50, no error: ` +
      `p99 ${millis(percentile(loadBerth.latencies, 99))} = ${loaded.times.toFixed(1)}x ${millis(joinP50)}, ` +
      `${loadBerth.errors} failed of ${loadBerth.runs + loadBerth.errors}${loadBerth.firstError ? ` (first: ${loadBerth.firstError.slice(0, 200)})` : ''}: ${verdict(loaded.met)}` +
      `\nGoal: a state update and a copy are event appends, p50 within 2x of POST /threads: ` +
      `${withinTwice('updateState')}; ${withinTwice('copy')}` +
      `\nDurability (Berth): the ${count(LONG_STREAM_STEPS)}-step run ${resumeBerth.runId} streamed ${count(streamed)} events` +
      ` and its stream in PostgreSQL holds ${count(durable)} RunStepEmitted events` +
      ` (${durable === streamed ? 'equal' : 'NOT equal'}); each resume after event ${count(RESUME_AFTER_EVENT)}` +
      ` got ${resumedAll ? 'exactly the remaining' : 'NOT the remaining'} ${count(streamed - RESUME_AFTER_EVENT)}.` +
      `\nScale-out: ${scale.runs} runs over 1 then 2 worker processes, ${scale.startedTwice} started twice: ${verdict(scale.startedTwice === 0)}` +
      `\n${storeGoals(store)}`,
  );
  if (resumePeer.failure !== undefined) {
    console.log(`Reference resume: ${resumePeer.failure}.`);
  }
  console.log(
    `Notes: the samples of the sequential measures were taken in turns (Berth, reference, ` +
      `Berth, ...); the parallel and 10k phases ran Berth then the reference, with a ` +
      `${SETTLE_MS / 1000} s pause after the reference (it writes its store to disk when idle). ` +
      `The reference is asked for stream_resumable: true (without it it keeps no events for a ` +
      `later reader; Berth ignores the flag, every run is resumable). Its joins and streams end on ` +
      `a 500 ms idle timeout (no "done" control message is ever published), which its latencies ` +
      `include. Machine at the end: ${load()}.`,
  );
}

async function main(): Promise<void> {
  const watchdog = setTimeout(() => {
    console.error(`The benchmark took longer than ${BENCH_TIMEOUT_MS} ms: aborting`);
    everything.abort(new Error('benchmark timeout'));
    setTimeout(() => process.exit(1), SERVER_STOP_TIMEOUT_MS * 2).unref();
  }, BENCH_TIMEOUT_MS);
  watchdog.unref();
  let database: BenchDatabase | undefined;
  let runtime: RuntimeProcess | undefined;
  let reference: ReferenceServer | undefined;
  // Interrupted: the embedded PostgreSQL's own signal hook may end this process before the
  // orderly shutdown below is through, so both servers get their signal here and now.
  const interrupt = (signal: NodeJS.Signals): void => {
    console.error(`${signal}: stopping the servers`);
    everything.abort(new Error(signal));
    void runtime?.kill();
    void reference?.stop();
    setTimeout(() => process.exit(1), SERVER_STOP_TIMEOUT_MS * 2).unref();
  };
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);

  // The heap a jailed runtime gets by default (the platform sizes it from the jail's limit).
  const jailedHeap = `--max-old-space-size=${runtimeHeapMegabytes(loadJailSettings({}))}`;
  try {
    if (PHASES.has('agents')) {
      await agentsPhase({
        runs: AGENTS_RUNS,
        timing: DEFAULT_TIMING,
        ways: AGENTS_WAYS,
        reference: AGENTS_REFERENCE,
        runtimeEnv: {
          EVENTSTORE_URL: '',
          NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} ${jailedHeap}`.trim(),
        },
        load,
      });
      if (PHASES.size === 1) return;
    }
    const startingBerth = (async () => {
      database = await openBenchDatabase('runtime');
      runtime = await startRuntime({
        databaseUrl: database.url,
        // The soak asks it for full collections (collect-on-signal.ts); nothing else changes.
        env: {
          EVENTSTORE_URL: '',
          NODE_OPTIONS: `${collectingNodeOptions(process.env.NODE_OPTIONS)} ${jailedHeap}`,
          ...(SNAPSHOT_DIR ? { [SNAPSHOT_REQUEST]: join(SNAPSHOT_DIR, 'request') } : {}),
        },
      });
    })();
    const comparing = PHASES.has('comparison');
    const storeAlone = PHASES.has('store') && !comparing;
    const referenced = comparing || storeAlone || PHASES.has('streaming-v2');
    const startingReference = referenced
      ? (async () => {
          reference = await startReferenceServer({ appDir: APP_DIR });
        })()
      : Promise.resolve();
    const started = await Promise.allSettled([startingBerth, startingReference]);
    for (const outcome of started) if (outcome.status === 'rejected') throw outcome.reason;
    if (!database || !runtime || (referenced && !reference)) {
      throw new Error('a server did not start');
    }

    const berth: Target = {
      name: 'berth',
      url: runtime.url,
      headers: { 'x-api-key': runtime.apiKey },
    };
    if (comparing && reference) await comparisonPhases(database, runtime, reference, berth);
    if (PHASES.has('streaming-v2') && reference) {
      await streamingV2Phase(runtime, reference, berth, !comparing);
    }
    if (PHASES.has('soak')) await soakPhase(runtime, berth, !comparing);
    if (storeAlone && reference) await storePhase(reference);
    const outputs: (readonly [string, string])[] = [['berth', runtime.output()]];
    if (reference) outputs.push(['reference', reference.output()]);
    for (const [name, output] of outputs) {
      const lines = errorLines(output);
      if (lines.length > 0)
        console.log(`\n${name} logged errors (first ${lines.length}):\n${lines.join('\n')}`);
    }
  } finally {
    clearTimeout(watchdog);
    const stopping: Promise<void>[] = [];
    if (runtime) stopping.push(stopRuntime(runtime));
    if (reference) stopping.push(reference.stop());
    const stops = await Promise.allSettled(stopping);
    for (const outcome of stops) if (outcome.status === 'rejected') console.error(outcome.reason);
    await database?.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
