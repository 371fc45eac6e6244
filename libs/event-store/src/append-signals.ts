import type { LogPosition } from './log-position.js';

export interface AppendNotice {
  readonly streamId: string;
  readonly streamPosition: number;
  readonly logPosition: LogPosition;
  /** What the append held, when it is known (this process's own appends). */
  readonly appended?: { readonly count: number; readonly types: ReadonlySet<string> };
}

/** Called with the notice of an append, or with nothing when only "something was appended" is known. */
export type WakeListener = (notice?: AppendNotice) => void;

/** In-process fan-out of committed appends to the subscriptions waiting for them. */
export class AppendSignals {
  private readonly streamListeners = new Map<string, Set<WakeListener>>();
  private readonly logListeners = new Set<WakeListener>();

  publish(notice: AppendNotice): void {
    for (const listener of this.logListeners) listener(notice);
    const listeners = this.streamListeners.get(notice.streamId);
    if (listeners) for (const listener of listeners) listener(notice);
  }

  /** Wakes every subscription: the appends are unknown, so each must look for itself. */
  publishUnknown(): void {
    for (const listener of this.logListeners) listener();
    for (const listeners of this.streamListeners.values()) {
      for (const listener of listeners) listener();
    }
  }

  onStream(streamId: string, listener: WakeListener): () => void {
    let listeners = this.streamListeners.get(streamId);
    if (!listeners) {
      listeners = new Set();
      this.streamListeners.set(streamId, listeners);
    }
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0) this.streamListeners.delete(streamId);
    };
  }

  onLog(listener: WakeListener): () => void {
    this.logListeners.add(listener);
    return () => this.logListeners.delete(listener);
  }
}
