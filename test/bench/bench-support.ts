import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropDatabase, ensureDatabase, startEmbeddedPostgres, withDatabase } from '#libs/database';

export interface BenchDatabase {
  readonly url: string;
  readonly where: string;
  close(): Promise<void>;
}

/** A fresh database on DATABASE_URL's server, or on an embedded server in a temporary directory. */
export async function openBenchDatabase(label: string): Promise<BenchDatabase> {
  const name = `berth_bench_${label}_${randomBytes(3).toString('hex')}`;
  const external = process.env.DATABASE_URL;
  if (external) {
    await ensureDatabase(external, name);
    return {
      url: withDatabase(external, name),
      where: 'the server at DATABASE_URL',
      close: () => dropDatabase(external, name),
    };
  }
  const dataDir = await mkdtemp(join(tmpdir(), 'berth-bench-'));
  const server = await startEmbeddedPostgres({ dataDir });
  await ensureDatabase(server.url, name);
  return {
    url: withDatabase(server.url, name),
    where: 'an embedded PostgreSQL',
    close: async () => {
      await server.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export interface Throughput {
  readonly operations: number;
  readonly items: number;
  readonly seconds: number;
}

/** Runs `clients` loops of `operation` (each returning how many items it handled) for a while. */
export async function measureThroughput(
  durationMs: number,
  clients: number,
  operation: (client: number) => Promise<number>,
): Promise<Throughput> {
  const started = performance.now();
  const deadline = started + durationMs;
  let operations = 0;
  let items = 0;
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      while (performance.now() < deadline) {
        const handled = await operation(client);
        items += handled;
        operations += 1;
      }
    }),
  );
  return { operations, items, seconds: (performance.now() - started) / 1000 };
}

export function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

export interface Row {
  readonly metric: string;
  readonly berth: string;
  readonly peer: string;
  readonly ratio: string;
}

export function rate(value: number): string {
  return `${Math.round(value).toLocaleString('en-US')}/s`;
}

export function millis(value: number): string {
  return `${value.toFixed(2)} ms`;
}

/** Berth's figure over the peer's: above 1 means Berth does more (for rates). */
export function ratio(berth: number, peer: number): string {
  return (berth / peer).toFixed(2);
}

/** Prints rows of Berth's figures beside a peer's, under the peer's name. */
export function printTable(title: string, peerName: string, rows: readonly Row[]): void {
  const header: Row = { metric: 'metric', berth: 'berth', peer: peerName, ratio: 'ratio' };
  const all = [header, ...rows];
  const width = (key: keyof Row): number => Math.max(...all.map((row) => row[key].length));
  const line = (row: Row): string =>
    [
      row.metric.padEnd(width('metric')),
      row.berth.padStart(width('berth')),
      row.peer.padStart(width('peer')),
      row.ratio.padStart(width('ratio')),
    ].join('   ');
  console.log(`\n${title}\n`);
  console.log(line(header));
  console.log('-'.repeat(line(header).length));
  for (const row of rows) console.log(line(row));
}

/** Peer over Berth for times, Berth over peer for rates: above 1 means Berth is better. */
export function speedUp(berth: number, peer: number, lowerIsBetter: boolean): string {
  return lowerIsBetter ? ratio(peer, berth) : ratio(berth, peer);
}

/** One row per percentile of two sets of times (ms), the ratio as `speedUp` has it. */
export function latencyRows(
  metric: string,
  berth: readonly number[],
  peer: readonly number[],
  ps: readonly number[],
): Row[] {
  return ps.map((p) => {
    const b = percentile(berth, p);
    const r = percentile(peer, p);
    return {
      metric: `${metric} p${p}`,
      berth: millis(b),
      peer: millis(r),
      ratio: speedUp(b, r, true),
    };
  });
}

/**
 * Takes the samples of a sequential measure in turns, one from each subject then again (Berth,
 * then the reference, ...), so that whatever else the machine does hits them all alike.
 */
export async function interleaved<const Subjects extends readonly unknown[], T>(
  label: string,
  subjects: Subjects,
  iterations: number,
  sample: (subject: Subjects[number]) => Promise<T>,
): Promise<{ -readonly [I in keyof Subjects]: T[] }> {
  const started = performance.now();
  const samples = subjects.map((): T[] => []);
  for (let i = 0; i < iterations; i += 1) {
    for (const [index, subject] of subjects.entries()) samples[index]?.push(await sample(subject));
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`  ${label}: ${iterations} samples from each, interleaved, in ${seconds} s`);
  return samples as { -readonly [I in keyof Subjects]: T[] };
}
