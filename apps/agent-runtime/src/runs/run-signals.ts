/**
 * In-process signals between the API and the workers: a new run to pick up, a run to cancel.
 * Other processes hear the same through PostgreSQL notifications (see RunWorkerPool).
 */
export class RunSignals {
  private readonly wakeListeners = new Set<() => void>();
  private readonly running = new Map<string, (action: 'interrupt' | 'rollback') => void>();

  wakeWorkers(): void {
    for (const listener of this.wakeListeners) listener();
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
