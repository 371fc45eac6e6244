/**
 * A position in the global log: a pair ordered by `commit`, then `prepare`.
 * PostgreSQL stores the writing transaction's id and the event's sequence number;
 * EventStoreDB its own commit and prepare positions.
 */
export interface LogPosition {
  readonly commit: bigint;
  readonly prepare: bigint;
}

export const LOG_START: LogPosition = { commit: -1n, prepare: -1n };

export function compareLogPositions(a: LogPosition, b: LogPosition): number {
  if (a.commit !== b.commit) return a.commit < b.commit ? -1 : 1;
  if (a.prepare !== b.prepare) return a.prepare < b.prepare ? -1 : 1;
  return 0;
}

export function formatLogPosition(position: LogPosition): string {
  return `${position.commit}/${position.prepare}`;
}

export function parseLogPosition(text: string): LogPosition {
  const [, commit, prepare] = /^(-?\d+)\/(-?\d+)$/.exec(text) ?? [];
  if (commit === undefined || prepare === undefined) throw new Error(`Not a log position: ${text}`);
  return { commit: BigInt(commit), prepare: BigInt(prepare) };
}
