/**
 * A signal that aborts when nothing was heard for `ms`: for a stream whose server writes at least
 * a heartbeat every so often, so that one that stopped answering without closing is noticed.
 */
export class SilenceWatch {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly ms: number) {
    this.heard();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Something was heard: the silence starts again from now. */
  heard(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.controller.abort(
        new DOMException(`no answer in ${Math.round(this.ms / 1000)} s`, 'TimeoutError'),
      );
    }, this.ms);
  }

  /** A pass-through stream that counts every chunk through it as heard. */
  listener<T>(): TransformStream<T, T> {
    return new TransformStream<T, T>({
      transform: (chunk, controller) => {
        this.heard();
        controller.enqueue(chunk);
      },
    });
  }

  stop(): void {
    clearTimeout(this.timer);
  }
}
