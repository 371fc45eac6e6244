import { setTimeout as sleep } from 'node:timers/promises';
import {
  ApiError,
  type DeployClient,
  type LogLine,
  type LogType,
} from '#libs/control-plane-client';

/** Where followed logs go: lines and takeovers on stdout, notices (one line each) on stderr. */
export interface FollowedLogsOutput {
  line(line: LogLine): void;
  takeover(revisionId: string, replaces: string): void;
  notice(text: string): void;
}

export interface ReconnectDelays {
  readonly firstMs: number;
  readonly maxMs: number;
}

export const RECONNECT_DELAYS: ReconnectDelays = { firstMs: 1_000, maxMs: 30_000 };

/** How following ended: stopped by the caller, or nothing to follow (no revision yet). */
export type FollowEnd = 'stopped' | 'no-revision';

/**
 * Follows a deployment's (or one revision's) logs until `signal` aborts. When the connection to
 * the control plane drops (it ends, fails, or the control plane answers 5xx or not at all) it
 * says so and connects again, after a delay that doubles up to `delays.maxMs` while it keeps
 * failing; the lines sent again then are skipped up to the last one printed, so none is printed
 * twice. Any other answer (the deployment gone, the key refused) is thrown.
 */
export async function followLogsAcrossOutages(options: {
  readonly client: DeployClient;
  readonly deploymentId: string;
  readonly revisionId: string | undefined;
  readonly type: LogType | undefined;
  readonly signal: AbortSignal;
  readonly output: FollowedLogsOutput;
  readonly delays?: ReconnectDelays;
}): Promise<FollowEnd> {
  const { client, output, signal } = options;
  const delays = options.delays ?? RECONNECT_DELAYS;
  /** The revision being followed and the id of its last line printed. */
  let position: { revision: string | null; lastLineId?: string } | undefined;
  let delayMs = delays.firstMs;
  /** Whether the platform is away, which was said. */
  let away = false;
  for (;;) {
    let answered = false;
    let why: string;
    try {
      const items = client.followLogs(
        options.deploymentId,
        options.revisionId,
        options.type,
        signal,
      );
      for await (const item of items) {
        if (item.kind === 'following') {
          answered = true;
          if (away) output.notice('reconnected to the platform; following the logs again');
          away = false;
          delayMs = delays.firstMs;
          const revision = item.revision_id;
          if (position?.revision && revision && revision !== position.revision) {
            // A revision took over while the connection was down.
            output.takeover(revision, position.revision);
            position = { revision };
          }
          position ??= { revision };
        } else if (item.kind === 'revision') {
          output.takeover(item.revision_id, item.replaces);
          position = { revision: item.revision_id };
        } else if (position && isAfterLine(item.line.id, position.lastLineId)) {
          position.lastLineId = item.line.id;
          output.line(item.line);
        }
      }
      if (signal.aborted) return 'stopped';
      if (!answered && position === undefined) return 'no-revision';
      why = 'the connection was closed';
    } catch (error) {
      if (signal.aborted) return 'stopped';
      if (!isOutage(error)) throw error;
      why = outageReason(error);
    }
    const wait = `reconnecting in ${Math.round(delayMs / 1000)} s…`;
    output.notice(
      away
        ? `still no answer from the platform (${why}); ${wait}`
        : `the platform stopped answering (${why}); ${wait}`,
    );
    away = true;
    try {
      await sleep(delayMs, undefined, { signal });
    } catch {
      return 'stopped';
    }
    delayMs = Math.min(delayMs * 2, delays.maxMs);
  }
}

/**
 * Whether a line's id (`<stream position>.<index>`, the control plane's order of a revision's
 * lines) comes after `last`; every line does when there is none.
 */
export function isAfterLine(id: string, last: string | undefined): boolean {
  if (last === undefined) return true;
  const [position = NaN, index = 0] = id.split('.').map(Number);
  const [lastPosition = NaN, lastIndex = 0] = last.split('.').map(Number);
  if (Number.isNaN(position) || Number.isNaN(lastPosition)) return id !== last;
  if (position !== lastPosition) return position > lastPosition;
  return index > lastIndex;
}

/** A failure that is the control plane being away, not an answer to give up on. */
export function isOutage(error: unknown): boolean {
  if (error instanceof ApiError) return error.status === 0 || error.status >= 500;
  return error instanceof Error && !(error instanceof SyntaxError);
}

/** Why the platform is away, in a few words: ECONNREFUSED, "503 ...", terminated. */
export function outageReason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error instanceof ApiError) {
    // "cannot reach the control plane at <url> (ECONNREFUSED)": the part in brackets says it.
    return error.status === 0
      ? (/\(([^()]+)\)$/.exec(error.message)?.[1] ?? error.message)
      : error.message;
  }
  const cause = error.cause as (Error & { code?: string }) | undefined;
  return cause?.code ?? cause?.message ?? error.message;
}
