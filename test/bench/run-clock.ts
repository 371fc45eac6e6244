/** How long a streamed run took to show its first output and to end, from asking for it. */
export interface RunTiming {
  /** Opening the event stream or socket before the run was asked for: not in the two below. */
  readonly openMs: number;
  /** To the first values or messages event. */
  readonly firstEventMs: number;
  /** To the run's end: v2, its root `lifecycle` completed; classic, the end of the body. */
  readonly wholeMs: number;
  readonly events: number;
}

/** A thread streaming v2 message as the wire carries it: an event, or a command's answer. */
export interface ProtocolMessage {
  readonly type: string;
  readonly id?: number | null;
  readonly method?: string;
  readonly error?: string;
  readonly message?: string;
  readonly params?: { readonly namespace?: readonly string[]; readonly data?: unknown };
}

const ROOT_ENDS = new Set(['completed', 'failed', 'interrupted']);

/** The root `lifecycle` event that ends a run: its `data.event`, or undefined for any other. */
export function rootEnd(message: ProtocolMessage): string | undefined {
  if (message.method !== 'lifecycle' || message.params?.namespace?.length !== 0) return undefined;
  const data = message.params.data;
  const event =
    typeof data === 'object' && data !== null ? (data as { event?: unknown }).event : undefined;
  return typeof event === 'string' && ROOT_ENDS.has(event) ? event : undefined;
}

/** Whether an event (SSE `event:` name, or v2 `method`) carries the run's output. */
function isOutput(name: string): boolean {
  return name === 'values' || name.startsWith('messages');
}

/** Started when the run is asked for; told each event as it arrives. */
export class RunClock {
  private started = performance.now();
  private firstAt: number | undefined;
  private endAt: number | undefined;
  private events = 0;

  start(): void {
    this.started = performance.now();
  }

  saw(name: string): void {
    this.events += 1;
    if (this.firstAt === undefined && isOutput(name)) this.firstAt = performance.now();
  }

  /** The run's end came (its last event, or the end of the body). */
  ended(): void {
    this.endAt ??= performance.now();
  }

  /** Once the run has ended; throws if no output came. */
  finish(what: string, openMs: number): RunTiming {
    const endAt = this.endAt ?? performance.now();
    if (this.firstAt === undefined) {
      throw new Error(`${what}: ${this.events} events, none of them values or messages`);
    }
    return {
      openMs,
      firstEventMs: this.firstAt - this.started,
      wholeMs: endAt - this.started,
      events: this.events,
    };
  }
}
