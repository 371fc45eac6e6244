import type { RunProgress } from './run-progress.js';

/** Runs recorded here and not yet started here: a run another process starts is dropped in time. */
const MAX_RECORDED_RUNS = 1_000;

/**
 * In-process signals between the API and the workers: a new run to pick up (and where the stream
 * the API recorded for it stands), a run to cancel. Other processes hear the same through
 * PostgreSQL notifications (see RunWorkerPool) and read the stream instead.
 */
export class RunSignals {
  private readonly wakeListeners = new Set<() => void>();
  private readonly running = new Map<string, (action: 'interrupt' | 'rollback') => void>();
  private readonly recorded = new Map<string, RunProgress>();

  wakeWorkers(recorded?: { readonly runId: string; readonly progress: RunProgress }): void {
    // Kept only where workers listen: an API-only process starts no run.
    if (recorded && this.wakeListeners.size > 0) {
      this.recorded.set(recorded.runId, recorded.progress);
      for (const oldest of this.recorded.keys()) {
        if (this.recorded.size <= MAX_RECORDED_RUNS) break;
        this.recorded.delete(oldest);
      }
    }
    for (const listener of this.wakeListeners) listener();
  }

  /** Where the stream of a run recorded here stands, once: its first attempt need not read it. */
  takeRecorded(runId: string): RunProgress | undefined {
    const progress = this.recorded.get(runId);
    this.recorded.delete(runId);
    return progress;
  }

  onWake(listener: () => void): () => void {
    this.wakeListeners.add(listener);
    return () => this.wakeListeners.delete(listener);
  }

  /** Registers a run executing here; returns the function that unregisters it. */
  registerRunning(runId: string, cancel: (action: 'interrupt' | 'rollback') => void): () => void {
    this.running.set(runId, cancel);
    return () => this.running.delete(runId);
  }

  cancelIfRunningHere(runId: string, action: 'interrupt' | 'rollback'): void {
    this.running.get(runId)?.(action);
  }
}
