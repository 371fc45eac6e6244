import type { RunCreatedData, RunFinishedData } from '../run-records/run.events.js';

/** A run whose outcome this process recorded. */
export interface FinishedRun {
  readonly created: RunCreatedData;
  readonly finished: RunFinishedData;
  /** When the attempt that finished started; null for a run cancelled before any attempt. */
  readonly startedAt: string | null;
}

/** Told of the attempts this process starts and the runs it finishes. Must neither throw nor block. */
export abstract class RunObserver {
  abstract runFinished(run: FinishedRun): void;

  /** An attempt of `run` started here. */
  runStarted(_run: RunCreatedData, _attempt: number, _startedAt: string): void {
    // Most observers only care how runs end.
  }

  /** Told last, once no run can start or finish here any more. */
  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** Tells each observer in turn; one that throws does not keep the others from hearing. */
export class RunObservers extends RunObserver {
  constructor(private readonly observers: readonly RunObserver[]) {
    super();
  }

  runFinished(run: FinishedRun): void {
    this.tellEach((observer) => {
      observer.runFinished(run);
    });
  }

  override runStarted(run: RunCreatedData, attempt: number, startedAt: string): void {
    this.tellEach((observer) => {
      observer.runStarted(run, attempt, startedAt);
    });
  }

  override async close(): Promise<void> {
    await Promise.allSettled(this.observers.map((observer) => observer.close()));
  }

  /** After the HTTP server and the workers: the runs they finished are reported too. */
  async onApplicationShutdown(): Promise<void> {
    await this.close();
  }

  private tellEach(tell: (observer: RunObserver) => void): void {
    for (const observer of this.observers) {
      try {
        tell(observer);
      } catch {
        // An observer never fails a run whose outcome is already in the log.
      }
    }
  }
}

/** The observer when nobody observes. */
export class NoRunObserver extends RunObserver {
  runFinished(): void {
    // Nothing to tell.
  }
}
