import type { LogPosition } from '#libs/event-store';

/**
 * How many protocol events of one thread one commit of the log can hold. An event's `seq` is
 * `commit × SLOTS + n`, n its rank among the thread's protocol events of that commit: numbers
 * that grow in the log's order, the same on every replica and every replay, with no counter kept
 * anywhere. (A PostgreSQL commit is a transaction id; EventStoreDB's, a commit position.)
 */
export const SEQ_SLOTS = 2 ** 14;

/** The position to read from so that the commit of `seq` is read whole. */
export function commitOfSeq(seq: number): bigint {
  return BigInt(Math.floor(seq / SEQ_SLOTS));
}

/** Reading from the start of a commit: every event of it comes after this position. */
export function beforeCommit(commit: bigint): LogPosition {
  return { commit, prepare: -1n };
}

/** Numbers the protocol events of a thread as they come, in the log's order. */
export class SeqClock {
  private commit: bigint | undefined;
  private rank = 0;

  next(position: LogPosition): number {
    if (position.commit !== this.commit) {
      this.commit = position.commit;
      this.rank = 0;
    }
    if (this.rank >= SEQ_SLOTS) {
      throw new Error(`More than ${SEQ_SLOTS} protocol events of one thread in one commit`);
    }
    return Number(position.commit) * SEQ_SLOTS + this.rank++;
  }
}
