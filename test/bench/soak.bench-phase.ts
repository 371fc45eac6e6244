import type { ChildProcess } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Row } from './bench-support.js';

/** What collect-on-signal.ts prints once loaded, and after each collection. */
export const COLLECTS_ON_SIGNAL = 'berth-bench: SIGUSR2 collects garbage';
export const COLLECTED = 'berth-bench-collected';
/** The runtime's environment variable naming the file where the soak asks for a heap snapshot. */
export const SNAPSHOT_REQUEST = 'BERTH_BENCH_SNAPSHOT_REQUEST';
/** Runs after which the soak's resident size is the base its growth is measured against. */
export const SOAK_BASE_RUNS = 1_000;

/**
 * `NODE_OPTIONS` for a runtime the soak can ask for full collections (collect-on-signal.ts, built
 * beside this file), keeping what the environment already had.
 */
export function collectingNodeOptions(current: string | undefined): string {
  const preload = pathToFileURL(resolve('dist/test/bench/collect-on-signal.js')).href;
  return `${current ?? ''} --import=${preload}`.trim();
}

/** One line of the soak's table: where the runtime's memory stood after so many runs. */
export interface SoakSample {
  /** Seconds since the soak began. */
  readonly seconds: number;
  readonly runs: number;
  /** Runs per second since the sample before. */
  readonly runsPerSecond: number;
  /** The runtime's resident size (VmRSS), MiB, as it was (before the collection below). */
  readonly rssMb: number;
  /** The runtime's heap used just after a full collection, MiB: what it keeps. */
  readonly heapMb: number | undefined;
  readonly label: string;
  /** The heap snapshot written with this sample, if any. */
  readonly snapshot?: string;
}

export interface SoakOptions {
  /** Runs in all, spread over the threads (each thread runs one after the other). */
  readonly runs: number;
  readonly threads: number;
  /** The runtime process: /proc/<pid>/status, and its collections when it loaded the preload. */
  readonly runtime: ChildProcess;
  /** Whether the runtime printed COLLECTS_ON_SIGNAL: without it, SIGUSR2 would end it. */
  readonly collects: boolean;
  /** A table line every this many seconds. */
  readonly sampleEverySeconds: number;
  /** Seconds the runtime is left idle after the last run, then sampled once more. */
  readonly idleSeconds: number;
  /**
   * Where heap snapshots are written after SOAK_BASE_RUNS runs and after the last (the runtime's
   * SNAPSHOT_REQUEST names `<dir>/request`); none without it.
   */
  readonly snapshotDir?: string;
  readonly newThread: () => Promise<string>;
  /** One run on the thread, to its end; throws on any failure. */
  readonly runOnce: (threadId: string) => Promise<void>;
}

export interface SoakResult {
  readonly samples: readonly SoakSample[];
  readonly runs: number;
  readonly errors: number;
  readonly firstError: string | undefined;
  /** Seconds the runs took (the idle time after them left out). */
  readonly seconds: number;
  readonly rows: Row[];
}

const MIB = 1024 * 1024;
const COLLECTION_TIMEOUT_MS = 10_000;
const SNAPSHOT_TIMEOUT_MS = 120_000;

/** The resident size of a process in MiB (VmRSS of /proc/<pid>/status); NaN without /proc. */
export async function residentMb(pid: number): Promise<number> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
    return kb === undefined ? Number.NaN : Number(kb) / 1024;
  } catch {
    return Number.NaN;
  }
}

/**
 * Asks the runtime for a full collection (SIGUSR2, see collect-on-signal.ts) and resolves with
 * the heap it then used, in bytes; undefined when it does not collect on the signal or does not
 * answer in time.
 */
function fullCollections(
  runtime: ChildProcess,
  collects: boolean,
): {
  collect: (snapshotRequest?: { file: string; target: string }) => Promise<number | undefined>;
  stop: () => void;
} {
  const stdout = runtime.stdout;
  if (!collects || !stdout || runtime.pid === undefined) {
    return { collect: () => Promise.resolve(undefined), stop: () => undefined };
  }
  const waiting = new Map<number, (heapUsed: number) => void>();
  let asked = 0;
  let partial = '';
  const onData = (chunk: Buffer): void => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      const [marker, n, heapUsed] = line.trim().split(' ');
      if (marker === COLLECTED) waiting.get(Number(n))?.(Number(heapUsed));
    }
  };
  stdout.on('data', onData);
  return {
    collect: async (snapshotRequest) => {
      asked += 1;
      const n = asked;
      if (snapshotRequest) await writeFile(snapshotRequest.file, snapshotRequest.target);
      return new Promise((done) => {
        // A heap snapshot of a few hundred MiB takes a while to write.
        const timeoutMs = snapshotRequest ? SNAPSHOT_TIMEOUT_MS : COLLECTION_TIMEOUT_MS;
        const timer = setTimeout(() => {
          waiting.delete(n);
          done(undefined);
        }, timeoutMs);
        waiting.set(n, (heapUsed) => {
          clearTimeout(timer);
          waiting.delete(n);
          done(heapUsed);
        });
        runtime.kill('SIGUSR2');
      });
    },
    stop: () => {
      stdout.off('data', onData);
    },
  };
}

/**
 * Many runs over a fixed set of threads, each thread's conversation growing run after run, while
 * the runtime's resident size and its heap after a full collection are sampled: what the runtime
 * keeps per thread and per run must level off, not grow with the runs. The first sample is the
 * warm-up (the threads still short, caches filling): growth is counted from the second to the
 * last run's, and to one taken after the runtime was left idle.
 */
export async function soakBench(options: SoakOptions): Promise<SoakResult> {
  const threads = await Promise.all(
    Array.from({ length: options.threads }, () => options.newThread()),
  );
  const collections = fullCollections(options.runtime, options.collects);
  const samples: SoakSample[] = [];
  let runs = 0;
  let started = 0;
  let errors = 0;
  let firstError: string | undefined;
  const began = performance.now();
  let last = { at: began, runs: 0 };

  let snapshotAtBase = options.snapshotDir !== undefined;
  const snapshotOf = (name: string): { file: string; target: string } | undefined =>
    options.snapshotDir === undefined
      ? undefined
      : {
          file: join(options.snapshotDir, 'request'),
          target: join(options.snapshotDir, `${name}.heapsnapshot`),
        };

  const sample = async (label: string, snapshotName?: string): Promise<void> => {
    const now = performance.now();
    const done = runs;
    const rssMb = await residentMb(options.runtime.pid ?? 0);
    let snapshot = snapshotName === undefined ? undefined : snapshotOf(snapshotName);
    if (!snapshot && snapshotAtBase && done >= SOAK_BASE_RUNS) {
      snapshotAtBase = false;
      snapshot = snapshotOf(`after-${done}-runs`);
    }
    const heapUsed = await collections.collect(snapshot);
    const line: SoakSample = {
      seconds: (now - began) / 1000,
      runs: done,
      runsPerSecond: ((done - last.runs) * 1000) / Math.max(1, now - last.at),
      rssMb,
      heapMb: heapUsed === undefined ? undefined : heapUsed / MIB,
      label,
      snapshot: heapUsed === undefined ? undefined : snapshot?.target,
    };
    samples.push(line);
    console.log(`  soak: ${formatSample(line)}`);
    last = { at: now, runs: done };
  };

  let sampling = Promise.resolve();
  const timer = setInterval(() => {
    sampling = sampling.then(() => sample(samples.length === 0 ? 'warm-up' : ''));
  }, options.sampleEverySeconds * 1000);
  let seconds: number;
  try {
    await Promise.all(
      threads.map(async (threadId) => {
        while (started < options.runs) {
          started += 1;
          try {
            await options.runOnce(threadId);
            // Only runs that ended count: a soak cut short by the benchmark's watchdog fails the
            // rest at once, which would pass for thousands of runs in no time.
            runs += 1;
          } catch (error) {
            errors += 1;
            firstError ??= error instanceof Error ? error.message : String(error);
          }
        }
      }),
    );
    seconds = (performance.now() - began) / 1000;
    clearInterval(timer);
    await sampling;
    await sample('last run', `after-${runs}-runs`);
    await new Promise((done) => setTimeout(done, options.idleSeconds * 1000));
    await sample(`${options.idleSeconds} s idle`);
  } finally {
    clearInterval(timer);
    collections.stop();
  }
  return {
    samples,
    runs,
    errors,
    firstError,
    seconds,
    rows: soakRows(samples, options, runs, errors),
  };
}

function formatSample(line: SoakSample): string {
  return [
    `${line.seconds.toFixed(0).padStart(4)} s`,
    `${line.runs.toLocaleString('en-US').padStart(6)} runs`,
    `${line.runsPerSecond.toFixed(1).padStart(5)} runs/s`,
    `RSS ${line.rssMb.toFixed(0).padStart(5)} MiB`,
    `heap after a full GC ${line.heapMb === undefined ? '    -' : line.heapMb.toFixed(0).padStart(5)} MiB`,
    line.label,
    line.snapshot === undefined ? '' : `(heap snapshot ${line.snapshot})`,
  ]
    .join('   ')
    .trimEnd();
}

/** The soak's table: every sample, then the growth from the first after the warm-up. */
export function printSoakTable(result: SoakResult, title: string): void {
  const header = [
    ' time',
    '   runs',
    'runs/s',
    'resident (VmRSS)',
    'heap used after a full GC',
  ].join('   ');
  console.log(`\n${title}\n`);
  console.log(header);
  console.log('-'.repeat(header.length));
  for (const line of result.samples) {
    console.log(
      [
        `${line.seconds.toFixed(0).padStart(3)} s`,
        line.runs.toLocaleString('en-US').padStart(7),
        line.runsPerSecond.toFixed(1).padStart(6),
        `${line.rssMb.toFixed(0).padStart(12)} MiB`,
        `${line.heapMb === undefined ? '-'.padStart(21) : line.heapMb.toFixed(0).padStart(21)} MiB`,
        line.label,
      ]
        .join('   ')
        .trimEnd(),
    );
  }
  console.log('');
  const width = Math.max(...result.rows.map((row) => row.metric.length));
  for (const row of result.rows) console.log(`${row.metric.padEnd(width)}   ${row.berth}`);
}

function growth(from: number | undefined, to: number | undefined): string {
  if (from === undefined || to === undefined || Number.isNaN(from) || Number.isNaN(to)) return '-';
  const delta = to - from;
  const percent = ((to / from - 1) * 100).toFixed(0);
  return `${delta >= 0 ? '+' : ''}${delta.toFixed(0)} MiB (${from.toFixed(0)} to ${to.toFixed(0)} MiB, ${percent}%)`;
}

function soakRows(
  samples: readonly SoakSample[],
  options: SoakOptions,
  runs: number,
  errors: number,
): Row[] {
  // The first sample is the warm-up's; a soak too short for more starts from it.
  const base = samples.length > 3 ? samples[1] : samples[0];
  const lastRun = samples.at(-2);
  const idle = samples.at(-1);
  const label = `soak, ${runs.toLocaleString('en-US')} runs over ${options.threads} threads`;
  const row = (metric: string, berth: string): Row => ({ metric, berth, peer: '-', ratio: '' });
  const after = `after warm-up (${base?.seconds.toFixed(0) ?? '-'} s)`;
  // Once the caches are full, what is kept must level off: the last samples show it.
  const tail = samples.slice(0, -1).slice(-4);
  const kept = tail.flatMap((sample) => (sample.heapMb === undefined ? [] : [sample.heapMb]));
  const spread =
    kept.length === 0
      ? '-'
      : `${Math.min(...kept).toFixed(0)} to ${Math.max(...kept).toFixed(0)} MiB`;
  const atBase = samples.find((sample) => sample.runs >= SOAK_BASE_RUNS);
  const ratio =
    atBase && lastRun && atBase !== lastRun
      ? `${(lastRun.rssMb / atBase.rssMb).toFixed(2)}x (${atBase.rssMb.toFixed(0)} MiB after ${atBase.runs.toLocaleString('en-US')} runs, ${lastRun.rssMb.toFixed(0)} MiB after ${lastRun.runs.toLocaleString('en-US')}; goal at most 1.3x)`
      : '-';
  return [
    row(
      `${label}: resident size after the last run against after ${SOAK_BASE_RUNS.toLocaleString('en-US')}`,
      ratio,
    ),
    row(`${label}: resident size, ${after} to the last run`, growth(base?.rssMb, lastRun?.rssMb)),
    row(
      `${label}: heap after a full GC, ${after} to the last run`,
      growth(base?.heapMb, lastRun?.heapMb),
    ),
    row(
      `${label}: heap after a full GC, the last ${tail.length} samples (from ${tail[0]?.seconds.toFixed(0) ?? '-'} s)`,
      spread,
    ),
    row(
      `${label}: resident size, ${after} to ${options.idleSeconds} s idle`,
      growth(base?.rssMb, idle?.rssMb),
    ),
    row(
      `${label}: heap after a full GC, ${after} to ${options.idleSeconds} s idle`,
      growth(base?.heapMb, idle?.heapMb),
    ),
    row(`${label}: failed runs`, String(errors)),
  ];
}
