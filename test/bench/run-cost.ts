import { readFile } from 'node:fs/promises';
import { queryRows } from '../support/database-query.js';

/** What a process and its database spent, sampled before and after a workload. */
export interface CostSample {
  readonly cpuMs: number;
  readonly transactions: number;
  readonly at: number;
}

/** CPU time (user + system) of a process, from /proc; 0 where there is no /proc. */
async function cpuMsOf(pid: number): Promise<number> {
  try {
    const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]?.split(' ') ?? [];
    // utime and stime are fields 14 and 15 of the whole line: 12 and 13 after "(comm) ".
    const ticks = Number(fields[11]) + Number(fields[12]);
    return (ticks * 1000) / 100;
  } catch {
    return 0;
  }
}

/**
 * Transactions committed in the database (`pg_stat_database.xact_commit`: every statement outside
 * a transaction counts as one, reads included). PostgreSQL publishes a backend's counts within
 * about a second, so a sample is taken after the workload has settled.
 */
async function transactionsOf(databaseUrl: string): Promise<number> {
  const [row] = await queryRows<{ commits: string }>(
    databaseUrl,
    'select xact_commit as commits from pg_stat_database where datname = current_database()',
  );
  return Number(row?.commits ?? 0);
}

export async function sampleCost(pid: number, databaseUrl: string): Promise<CostSample> {
  return {
    cpuMs: await cpuMsOf(pid),
    transactions: await transactionsOf(databaseUrl),
    at: performance.now(),
  };
}

/**
 * Per run, between two samples, less what the idle process spent at `idle` (per ms) over the
 * same time (its projections and schedulers poll).
 */
export function costPerRun(
  before: CostSample,
  after: CostSample,
  runs: number,
  idle: { readonly cpuMsPerMs: number; readonly transactionsPerMs: number },
): { readonly cpuMs: number; readonly transactions: number } {
  const elapsed = after.at - before.at;
  return {
    cpuMs: (after.cpuMs - before.cpuMs - idle.cpuMsPerMs * elapsed) / runs,
    transactions:
      (after.transactions - before.transactions - idle.transactionsPerMs * elapsed) / runs,
  };
}

/** The idle rates, measured over `ms` with nothing asked of the process. */
export async function idleRates(
  pid: number,
  databaseUrl: string,
  ms: number,
): Promise<{ cpuMsPerMs: number; transactionsPerMs: number }> {
  const before = await sampleCost(pid, databaseUrl);
  await new Promise((done) => setTimeout(done, ms));
  const after = await sampleCost(pid, databaseUrl);
  const elapsed = after.at - before.at;
  return {
    cpuMsPerMs: (after.cpuMs - before.cpuMs) / elapsed,
    transactionsPerMs: (after.transactions - before.transactions) / elapsed,
  };
}
