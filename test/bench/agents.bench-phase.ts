import { setMaxListeners } from 'node:events';
import { join, resolve } from 'node:path';
import { Client } from '@langchain/langgraph-sdk';
import pg from 'pg';
import { startRuntime } from '../support/runtime-process.js';
import { modelTime, timingConfigurable, type ModelTiming } from './agents-app/src/model-timing.js';
import { everything, type Target } from './bench-http.js';
import {
  millis,
  openBenchDatabase,
  percentile,
  printTable,
  speedUp,
  type Row,
} from './bench-support.js';
import { socketRun, type StreamedTokens } from './agents-socket-run.js';
import { treeUsage } from './process-usage.js';
import { startReferenceServer } from './reference-server.js';

/** The phase's application: test/bench/agents-app (a model streaming tokens with delays). */
const APP_DIR = resolve('test/bench/agents-app');
const AGENTS_GRAPH = 'agents';
const THREAD_BATCH = 50;
const SAMPLE_EVERY_MS = 200;
/** Runs of both kinds before the clock starts, with a quick model. */
const WARM_UP_RUNS = 4;
const WARM_UP_TIMING: ModelTiming = { tokens: 5, intervalMs: 10 };
/** The model's tokens, as test/bench/agents-app/src/streaming-model.ts streams them. */
const TOKEN = /^token\d+ $/;

/** The goals for Berth (issue 46). */
export const AGENTS_GOALS = {
  firstTokenP99Ms: 100,
  endP99Ms: 250,
  residentMb: 600,
} as const;

/** Classic `runs/stream` over SSE with the SDK, or thread streaming v2 over a WebSocket. */
export type AgentsWay = 'classic' | 'v2';

type RunConfig = { configurable: Record<string, number> };

export interface AgentsOptions {
  readonly target: Target;
  readonly way: AgentsWay;
  /** The server's process (with its descendants: the reference is a process tree). */
  readonly pid: number;
  /** The server's database, for its connections (pg_stat_activity); none for the reference. */
  readonly databaseUrl?: string;
  readonly runs: number;
  readonly timing: ModelTiming;
  readonly timeoutMs: number;
}

export interface AgentsResult {
  readonly runs: number;
  readonly seconds: number;
  /** Per run that succeeded, beyond the model's own time (ms). */
  readonly firstTokenAdded: number[];
  readonly lastTokenAdded: number[];
  readonly endAdded: number[];
  readonly failed: number;
  readonly firstError: string | undefined;
  readonly peakResidentBytes: number;
  readonly cpuSeconds: number;
  readonly processes: number;
  readonly peakConnections: number | undefined;
  /** Berth: the most runs in progress at once, and its admission limit's samples. */
  readonly peakInProgress: number | undefined;
  readonly admissionLimits: readonly number[];
}

/** One human message asks for an answer; two (a second turn) make the model call its tool first. */
function inputOf(run: number): { toolTurn: boolean; input: Record<string, unknown> } {
  const question = { role: 'user', content: 'What is new?' };
  if (run % 2 === 0) return { toolTurn: false, input: { messages: [question] } };
  const earlier = [
    { role: 'user', content: 'Hello' },
    { role: 'assistant', content: 'Hello, how can I help?' },
  ];
  return { toolTurn: true, input: { messages: [...earlier, question] } };
}

interface RunOutcome {
  readonly firstTokenMs: number;
  readonly lastTokenMs: number;
  readonly endMs: number;
}

function tokenOf(data: unknown): string | undefined {
  const message: unknown = Array.isArray(data) ? data[0] : undefined;
  const content =
    typeof message === 'object' && message !== null
      ? (message as { content?: unknown }).content
      : undefined;
  return typeof content === 'string' && TOKEN.test(content) ? content : undefined;
}

/** One run streamed with the SDK (`messages-tuple`, classic SSE) to the end of its stream. */
async function classicRun(
  client: Client,
  threadId: string,
  run: { readonly input: Record<string, unknown>; readonly config: RunConfig },
  timeoutMs: number,
): Promise<StreamedTokens> {
  const started = performance.now();
  let firstAt: number | undefined;
  let lastAt = Number.NaN;
  let tokens = 0;
  for await (const part of client.runs.stream(threadId, AGENTS_GRAPH, {
    input: run.input,
    config: run.config,
    streamMode: 'messages-tuple',
    signal: AbortSignal.any([everything.signal, AbortSignal.timeout(timeoutMs)]),
  })) {
    if (part.event === 'error') throw new Error(`error event: ${JSON.stringify(part.data)}`);
    if (part.event !== 'messages' || tokenOf(part.data) === undefined) continue;
    lastAt = performance.now();
    firstAt ??= lastAt;
    tokens += 1;
  }
  return {
    firstAt: (firstAt ?? Number.NaN) - started,
    lastAt: lastAt - started,
    endAt: performance.now() - started,
    tokens,
  };
}

/** One run streamed the given way, its times beyond the model's own. */
async function streamRun(
  client: Client,
  threadId: string,
  run: number,
  options: AgentsOptions,
): Promise<RunOutcome> {
  const { toolTurn, input } = inputOf(run);
  const model = modelTime(options.timing, toolTurn);
  const config = { configurable: timingConfigurable(options.timing) };
  const streamed =
    options.way === 'classic'
      ? await classicRun(client, threadId, { input, config }, options.timeoutMs)
      : await socketRun(
          options.target,
          threadId,
          { assistantId: AGENTS_GRAPH, input, config },
          options.timeoutMs,
        );
  if (Number.isNaN(streamed.firstAt) || streamed.tokens !== options.timing.tokens) {
    throw new Error(`streamed ${streamed.tokens} of the model's ${options.timing.tokens} tokens`);
  }
  return {
    firstTokenMs: streamed.firstAt - model.firstTokenMs,
    lastTokenMs: streamed.lastAt - model.totalMs,
    endMs: streamed.endAt - model.totalMs,
  };
}

async function createThreads(client: Client, count: number): Promise<string[]> {
  const threads: string[] = [];
  while (threads.length < count) {
    const batch = Math.min(THREAD_BATCH, count - threads.length);
    const made = await Promise.all(Array.from({ length: batch }, () => client.threads.create()));
    threads.push(...made.map((thread) => thread.thread_id));
  }
  return threads;
}

/** Berth's own gauges of its run admission (`/metrics`). */
async function admissionGauges(target: Target): Promise<{ limit: number; inProgress: number }> {
  const response = await fetch(`${target.url}/metrics`, { headers: target.headers });
  const text = await response.text();
  const valueOf = (name: string): number =>
    Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
  return {
    limit: valueOf('berth_run_admission_limit'),
    inProgress: valueOf('berth_runs_in_progress'),
  };
}

/** Samples the server's resident size (summed over its tree) and database connections. */
function startSampling(options: AgentsOptions): {
  stop(): Promise<{
    peakResidentBytes: number;
    peakConnections: number | undefined;
    peakInProgress: number | undefined;
    limits: number[];
  }>;
} {
  let peakResidentBytes = 0;
  let peakConnections: number | undefined;
  const sampling = { stopped: false };
  let peakInProgress: number | undefined;
  const limits: number[] = [];
  const database = options.databaseUrl
    ? new pg.Client({ connectionString: options.databaseUrl })
    : undefined;
  const connecting = database?.connect();
  const sampleOnce = async (): Promise<void> => {
    const usage = await treeUsage(options.pid);
    peakResidentBytes = Math.max(peakResidentBytes, usage.residentBytes);
    if (options.databaseUrl) {
      const gauges = await admissionGauges(options.target);
      peakInProgress = Math.max(peakInProgress ?? 0, gauges.inProgress);
      limits.push(gauges.limit);
    }
    if (database) {
      await connecting;
      const { rows } = await database.query<{ count: number }>(
        `select count(*)::int as count from pg_stat_activity
          where datname = current_database() and pid <> pg_backend_pid()`,
      );
      peakConnections = Math.max(peakConnections ?? 0, rows[0]?.count ?? 0);
    }
  };
  // A sample that fails (the server closed a kept-alive socket) is skipped.
  const sampleSafely = (): Promise<void> => sampleOnce().catch(() => undefined);
  const loop = (async () => {
    while (!sampling.stopped) {
      await sampleSafely();
      await new Promise((done) => setTimeout(done, SAMPLE_EVERY_MS));
    }
    await sampleSafely();
  })();
  return {
    stop: async () => {
      sampling.stopped = true;
      await loop;
      await database?.end();
      return { peakResidentBytes, peakConnections, peakInProgress, limits };
    },
  };
}

/**
 * N runs of the agents graph at once, each on a thread of its own (made before the clock starts),
 * each streamed by the official SDK; the server's CPU, resident size and connections over them.
 */
export async function agentsBench(options: AgentsOptions): Promise<AgentsResult> {
  const client = new Client({
    apiUrl: options.target.url,
    apiKey: null,
    defaultHeaders: { ...options.target.headers },
    callerOptions: { maxRetries: 0 },
  });
  // Each run in flight listens to the benchmark's watchdog.
  setMaxListeners(options.runs + WARM_UP_RUNS + 10, everything.signal);
  // The first runs load the graph and warm the server's code up: outside the figures.
  const warmUp = { ...options, timing: WARM_UP_TIMING };
  const warmThreads = await createThreads(client, WARM_UP_RUNS);
  await Promise.all(warmThreads.map((threadId, run) => streamRun(client, threadId, run, warmUp)));
  const threads = await createThreads(client, options.runs);
  const before = await treeUsage(options.pid);
  const sampling = startSampling(options);
  const started = performance.now();
  const outcomes = await Promise.allSettled(
    threads.map((threadId, run) => streamRun(client, threadId, run, options)),
  );
  const seconds = (performance.now() - started) / 1000;
  const after = await treeUsage(options.pid);
  const peaks = await sampling.stop();
  const succeeded = outcomes.flatMap((outcome) =>
    outcome.status === 'fulfilled' ? [outcome.value] : [],
  );
  const rejected = outcomes.find((outcome) => outcome.status === 'rejected');
  return {
    runs: options.runs,
    seconds,
    firstTokenAdded: succeeded.map((outcome) => outcome.firstTokenMs),
    lastTokenAdded: succeeded.map((outcome) => outcome.lastTokenMs),
    endAdded: succeeded.map((outcome) => outcome.endMs),
    failed: outcomes.length - succeeded.length,
    firstError:
      rejected === undefined
        ? undefined
        : rejected.reason instanceof Error
          ? rejected.reason.message
          : String(rejected.reason),
    peakResidentBytes: peaks.peakResidentBytes,
    cpuSeconds: after.cpuSeconds - before.cpuSeconds,
    processes: after.processes,
    peakConnections: peaks.peakConnections,
    peakInProgress: peaks.peakInProgress,
    admissionLimits: peaks.limits,
  };
}

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(0)} MB`;
}

function addedRows(
  label: string,
  berth: readonly number[],
  peer: readonly number[],
  goalP99Ms: number | undefined,
): Row[] {
  return [50, 99].map((p) => {
    const b = percentile(berth, p);
    const r = percentile(peer, p);
    const goal = p === 99 && goalP99Ms !== undefined ? ` (goal <= ${goalP99Ms} ms)` : '';
    return {
      metric: `${label} p${p}${goal}`,
      berth: millis(b),
      peer: millis(r),
      ratio: speedUp(b, r, true),
    };
  });
}

/** Berth's figures beside the reference's, each with the goal where it has one. */
export function agentsRows(berth: AgentsResult, peer: AgentsResult): Row[] {
  return [
    {
      metric: 'wall time of the phase (all runs to their end)',
      berth: `${berth.seconds.toFixed(1)} s`,
      peer: `${peer.seconds.toFixed(1)} s`,
      ratio: speedUp(berth.seconds, peer.seconds, true),
    },
    ...addedRows(
      'added to the first token',
      berth.firstTokenAdded,
      peer.firstTokenAdded,
      AGENTS_GOALS.firstTokenP99Ms,
    ),
    ...addedRows('added to the last token', berth.lastTokenAdded, peer.lastTokenAdded, undefined),
    ...addedRows(
      'added to the end of the stream',
      berth.endAdded,
      peer.endAdded,
      AGENTS_GOALS.endP99Ms,
    ),
    {
      metric: 'failed runs (goal 0)',
      berth: String(berth.failed),
      peer: String(peer.failed),
      ratio: '',
    },
    {
      metric: `server resident memory, peak (goal <= ${AGENTS_GOALS.residentMb} MB)`,
      berth: mb(berth.peakResidentBytes),
      peer: mb(peer.peakResidentBytes),
      ratio: speedUp(berth.peakResidentBytes, peer.peakResidentBytes, true),
    },
    {
      metric: 'server CPU over the phase (user + system)',
      berth: `${berth.cpuSeconds.toFixed(1)} s`,
      peer: `${peer.cpuSeconds.toFixed(1)} s`,
      ratio: speedUp(berth.cpuSeconds, peer.cpuSeconds, true),
    },
    {
      metric: 'server processes',
      berth: String(berth.processes),
      peer: String(peer.processes),
      ratio: '',
    },
    {
      metric: 'Berth: runs in progress, peak (its admission limit p50, max)',
      berth:
        berth.peakInProgress === undefined
          ? '-'
          : `${berth.peakInProgress} (${percentile(berth.admissionLimits, 50)}, ${Math.max(...berth.admissionLimits)})`,
      peer: '-',
      ratio: '',
    },
    {
      metric: 'PostgreSQL connections, peak (pg_stat_activity)',
      berth: berth.peakConnections === undefined ? '-' : String(berth.peakConnections),
      peer: '-',
      ratio: '',
    },
  ];
}

/** The goals' verdicts for Berth, one line. */
export function agentsGoals(berth: AgentsResult, peer: AgentsResult): string {
  const verdict = (met: boolean): string => (met ? 'met' : 'MISSED');
  const first = percentile(berth.firstTokenAdded, 99);
  const end = percentile(berth.endAdded, 99);
  const resident = berth.peakResidentBytes / 1024 / 1024;
  const compared = comparedGoals(berth, peer);
  return (
    `Goals (issue 46), Berth: 0 failed: ${berth.failed} (${verdict(berth.failed === 0)}); ` +
    `added p99 to the first token <= ${AGENTS_GOALS.firstTokenP99Ms} ms: ${millis(first)} (${verdict(first <= AGENTS_GOALS.firstTokenP99Ms)}); ` +
    `to the end <= ${AGENTS_GOALS.endP99Ms} ms: ${millis(end)} (${verdict(end <= AGENTS_GOALS.endP99Ms)}); ` +
    `resident <= ${AGENTS_GOALS.residentMb} MB: ${resident.toFixed(0)} MB (${verdict(resident <= AGENTS_GOALS.residentMb)})` +
    (peer.runs === 0 ? '' : `; ${compared}`)
  );
}

/** Whether each of Berth's figures beats the reference's. */
function comparedGoals(berth: AgentsResult, peer: AgentsResult): string {
  const verdict = (met: boolean): string => (met ? 'met' : 'MISSED');
  const first = percentile(berth.firstTokenAdded, 99);
  const end = percentile(berth.endAdded, 99);
  return (
    `every figure better than the reference's: first token p99 ${verdict(first < percentile(peer.firstTokenAdded, 99))}, ` +
    `end p99 ${verdict(end < percentile(peer.endAdded, 99))}, resident ${verdict(berth.peakResidentBytes < peer.peakResidentBytes)}, ` +
    `CPU ${verdict(berth.cpuSeconds < peer.cpuSeconds)}`
  );
}

export interface AgentsPhaseOptions {
  readonly runs: number;
  readonly timing: ModelTiming;
  /** The ways each server is measured, one pass each, in this order. */
  readonly ways: readonly AgentsWay[];
  /** Whether the reference server takes its turn after Berth. */
  readonly reference: boolean;
  /** The Berth runtime's environment beside its database and graphs. */
  readonly runtimeEnv: Readonly<Record<string, string>>;
  /** The machine's load, for the title. */
  readonly load: () => string;
}

/** Nothing of this phase's result: its figures beside none, when the reference sits out. */
const NOT_RUN: AgentsResult = {
  runs: 0,
  seconds: Number.NaN,
  firstTokenAdded: [],
  lastTokenAdded: [],
  endAdded: [],
  failed: 0,
  firstError: undefined,
  peakResidentBytes: Number.NaN,
  cpuSeconds: Number.NaN,
  processes: 0,
  peakConnections: undefined,
  peakInProgress: undefined,
  admissionLimits: [],
};

const WAY_NAMES: Record<AgentsWay, string> = {
  classic: 'clients streaming messages-tuple (classic SSE, official SDK client.runs.stream)',
  v2: 'clients on thread streaming v2 over a WebSocket (messages and lifecycle)',
};

type Passes = Map<AgentsWay, AgentsResult>;

/** Each way in turn on one server, fresh threads each pass. */
async function passes(
  options: AgentsPhaseOptions,
  server: Omit<AgentsOptions, 'way' | 'runs' | 'timing' | 'timeoutMs'>,
  timeoutMs: number,
): Promise<Passes> {
  const results: Passes = new Map();
  for (const way of options.ways) {
    const result = await agentsBench({
      ...server,
      way,
      runs: options.runs,
      timing: options.timing,
      timeoutMs,
    });
    results.set(way, result);
    console.log(
      `  ${server.target.name} ${way}: ${result.seconds.toFixed(1)} s, ${result.failed} failed; ${options.load()}`,
    );
  }
  return results;
}

/**
 * The `agents` phase: Berth on a database of its own, then the reference server, each serving
 * test/bench/agents-app alone while the other is stopped, each way in turn; then a table a way.
 */
export async function agentsPhase(options: AgentsPhaseOptions): Promise<void> {
  const model = modelTime(options.timing, false);
  const timeoutMs = Math.max(120_000, options.runs * model.totalMs);
  console.log(
    `Agents benchmark: ${options.runs.toLocaleString('en-US')} runs at once of ${APP_DIR}, each on its own ` +
      `thread, the model streaming ${options.timing.tokens} tokens ${options.timing.intervalMs} ms apart ` +
      `(a tool call first on every other run); ways: ${options.ways.join(', ')}; Node ${process.version}; ${options.load()}`,
  );
  const database = await openBenchDatabase('agents');
  let berth: Passes;
  try {
    const runtime = await startRuntime({
      databaseUrl: database.url,
      graphConfig: join(APP_DIR, 'langgraph.json'),
      env: options.runtimeEnv,
    });
    try {
      if (runtime.child.pid === undefined) throw new Error('the runtime has no process id');
      berth = await passes(
        options,
        {
          target: { name: 'berth', url: runtime.url, headers: { 'x-api-key': runtime.apiKey } },
          pid: runtime.child.pid,
          databaseUrl: database.url,
        },
        timeoutMs,
      );
    } finally {
      if (runtime.child.exitCode !== null || runtime.child.signalCode !== null) {
        console.log(`The runtime exited during the phase:\n${runtime.output().slice(-3000)}`);
      }
      await runtime.stop();
    }
  } finally {
    await database.close();
  }
  let peer: Passes = new Map();
  let version = 'not run (BENCH_AGENTS_REFERENCE=off)';
  if (options.reference) {
    const reference = await startReferenceServer({ appDir: APP_DIR });
    version = `langgraphjs dev ${reference.version}`;
    try {
      peer = await passes(
        options,
        { target: { name: 'reference', url: reference.url, headers: {} }, pid: reference.pid },
        timeoutMs,
      );
    } finally {
      await reference.stop();
    }
  }
  for (const way of options.ways) {
    const ours = berth.get(way) ?? NOT_RUN;
    const theirs = peer.get(way) ?? NOT_RUN;
    printTable(
      `Agents: ${options.runs.toLocaleString('en-US')} runs in flight at once, ${WAY_NAMES[way]}; ` +
        `times beyond the model's own (${model.firstTokenMs} ms to its first token, ` +
        `${(model.totalMs / 1000).toFixed(1)} s in all, one interval more on a tool turn)`,
      version,
      agentsRows(ours, theirs),
    );
    console.log(`\n${agentsGoals(ours, theirs)}`);
    for (const [name, result] of [
      ['berth', ours],
      ['reference', theirs],
    ] as const) {
      if (result.firstError !== undefined) {
        console.log(`First failed run (${name}, ${way}): ${result.firstError.slice(0, 300)}`);
      }
    }
  }
  console.log(`Machine at the end: ${options.load()}.`);
}
