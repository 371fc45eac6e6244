interface Trail {
  holders: number;
  readonly pending: Set<Promise<void>>;
}

/**
 * The threads whose checkpoint writes may trail behind their graph: under LangGraph's `async`
 * durability a step does not wait for the previous step's checkpoint, but LangGraph chains its
 * puts, each called once the one before resolved, so each would be a commit of its own. A
 * trailing put resolves as soon as its append is queued: the puts of several steps gather into
 * one commit. Reads of the thread wait for what is queued, and the run waits for all of it before
 * it records its outcome, failing if any append failed.
 */
export class TrailingWrites {
  private readonly trails = new Map<string, Trail>();

  /** Runs `work` with the thread's writes trailing; resolves once every one of them is written. */
  async run<T>(threadId: string, work: () => Promise<T>): Promise<T> {
    const trail = this.trails.get(threadId) ?? { holders: 0, pending: new Set() };
    this.trails.set(threadId, trail);
    trail.holders += 1;
    const release = (): void => {
      trail.holders -= 1;
      if (trail.holders === 0) this.trails.delete(threadId);
    };
    let result: T;
    try {
      result = await work();
    } catch (error) {
      await Promise.allSettled(trail.pending);
      release();
      throw error;
    }
    try {
      await Promise.all(trail.pending);
    } finally {
      release();
    }
    return result;
  }

  /** Whether the thread trails: the append is then tracked here, and its writer need not wait. */
  track(threadId: string, appended: Promise<void>): boolean {
    const trail = this.trails.get(threadId);
    if (!trail) return false;
    trail.pending.add(appended);
    // A failed append stays pending: the run's end reports it.
    appended.then(
      () => trail.pending.delete(appended),
      () => undefined,
    );
    return true;
  }

  /** Resolves once the appends queued for the thread so far are settled, well or not. */
  async settled(threadId: string): Promise<void> {
    const trail = this.trails.get(threadId);
    if (trail && trail.pending.size > 0) await Promise.allSettled(trail.pending);
  }
}
