import { stat } from 'node:fs/promises';

const PROBE_TIMEOUT_MS = 2_000;

import type { ProcessHealth } from '#libs/persistence';

export type WorkerPoolHealth =
  { readonly ok: true } | { readonly ok: false; readonly detail: string };

type Probe = { readonly since: number; readonly done: Promise<void> };

/** What /ok says of a pool whose probe has not come back for `waitedMs`. */
export function stuckPool(waitedMs: number): WorkerPoolHealth {
  return {
    ok: false,
    detail:
      `the control plane's thread pool has not answered a file-system call for ` +
      `${Math.round(waitedMs / 100) / 10} s (its workers are held): it cannot read files, ` +
      `resolve names or reach its database`,
  };
}

/**
 * Whether libuv's thread pool (which every file-system call, DNS lookup and so every new
 * database connection needs) still answers: a tiny stat, at most one at a time, given a short
 * time. A probe still out when /ok is asked again is not repeated: it is the answer.
 */
export class WorkerPoolProbe {
  private pending: Probe | undefined;

  constructor(
    private readonly operation: () => Promise<unknown> = () => stat('/'),
    private readonly timeoutMs = PROBE_TIMEOUT_MS,
  ) {}

  async check(): Promise<WorkerPoolHealth> {
    const probe = (this.pending ??= this.start());
    const left = probe.since + this.timeoutMs - Date.now();
    if (left <= 0) return stuckPool(Date.now() - probe.since);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<WorkerPoolHealth>((resolve) => {
      timer = setTimeout(() => {
        resolve(stuckPool(Date.now() - probe.since));
      }, left);
    });
    try {
      return await Promise.race([probe.done.then(() => ({ ok: true }) as const), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  private start(): Probe {
    const probe: Probe = {
      since: Date.now(),
      done: this.operation().then(
        () => {
          if (this.pending === probe) this.pending = undefined;
        },
        () => {
          if (this.pending === probe) this.pending = undefined;
        },
      ),
    };
    return probe;
  }
}

/** The process's health with its thread pool's: a stuck pool alone makes /ok answer 503. */
export function withWorkerPool(health: ProcessHealth, pool: WorkerPoolHealth): ProcessHealth {
  if (pool.ok) return health;
  if (health.ok) return { ok: false, detail: pool.detail, failing: [] };
  return { ...health, detail: `${pool.detail}; ${health.detail}` };
}
