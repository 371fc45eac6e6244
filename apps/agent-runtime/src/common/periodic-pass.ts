/**
 * A pass made every interval, on every replica: one at a time (a tick during a pass joins it), a
 * failed pass reported and the next one tried anyway, and a stop that waits for the pass in hand.
 */
export class PeriodicPass {
  private timer: NodeJS.Timeout | undefined;
  private current: Promise<void> | undefined;

  constructor(
    private readonly pass: () => Promise<unknown>,
    private readonly failed: (error: unknown) => void,
  ) {}

  /** Passes every `intervalMs` from now on; with `immediately`, once at once as well. */
  start(intervalMs: number, immediately = false): void {
    if (immediately) void this.run();
    this.timer = setInterval(() => void this.run(), intervalMs);
  }

  /** One pass, or the one in progress. */
  run(): Promise<void> {
    this.current ??= this.pass()
      .then(() => undefined, this.failed)
      .finally(() => {
        this.current = undefined;
      });
    return this.current;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.current;
  }
}
