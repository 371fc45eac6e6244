export type StreamEvent = { readonly id?: string; readonly event: string; readonly data: unknown };

export type StreamPhase =
  | { readonly kind: 'connecting' }
  | { readonly kind: 'streaming' }
  | {
      readonly kind: 'reconnecting';
      readonly attempt: number;
      readonly after: string | undefined;
      readonly cause: string;
    }
  | { readonly kind: 'ended' }
  | { readonly kind: 'failed'; readonly cause: string };

export type Join = (lastEventId: string, signal: AbortSignal) => AsyncIterable<StreamEvent>;

/** Replays a run from its first event (`Last-Event-ID: -1`). */
export const FROM_START = '-1';

const MAX_ATTEMPTS = 30;
const backoffMs = (attempt: number): number => Math.min(250 * 2 ** (attempt - 1), 4000);

/** Read afresh each time: the signal may have been aborted while we waited. */
const stopped = (signal: AbortSignal): boolean => signal.aborted;

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A refusal (4xx) is an answer; anything else (a dropped connection, a 5xx) is worth retrying. */
function isRefusal(error: unknown): boolean {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' && status >= 400 && status < 500;
}

/**
 * Follows a run's stream to its end, resuming after a dropped connection from the last event
 * received (`Last-Event-ID`), so nothing is missed and nothing is shown twice.
 */
export async function followRun(options: {
  readonly join: Join;
  readonly from: string;
  readonly signal: AbortSignal;
  readonly onEvent: (event: StreamEvent) => void;
  readonly onPhase: (phase: StreamPhase) => void;
  readonly wait?: (ms: number) => Promise<void>;
}): Promise<void> {
  const wait =
    options.wait ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  let last = options.from;
  let attempt = 0;
  options.onPhase({ kind: 'connecting' });
  for (;;) {
    let streaming = false;
    try {
      for await (const event of options.join(last, options.signal)) {
        if (!streaming) options.onPhase({ kind: 'streaming' });
        streaming = true;
        attempt = 0;
        if (event.id !== undefined) last = event.id;
        options.onEvent(event);
      }
      if (!options.signal.aborted) options.onPhase({ kind: 'ended' });
      return;
    } catch (error) {
      if (options.signal.aborted) return;
      if (isRefusal(error) || attempt >= MAX_ATTEMPTS) {
        options.onPhase({ kind: 'failed', cause: messageOf(error) });
        return;
      }
      attempt += 1;
      options.onPhase({
        kind: 'reconnecting',
        attempt,
        after: last === FROM_START ? undefined : last,
        cause: messageOf(error),
      });
      await wait(backoffMs(attempt));
      if (stopped(options.signal)) return;
    }
  }
}
