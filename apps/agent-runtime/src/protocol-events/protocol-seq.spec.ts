import { describe, expect, it } from '@jest/globals';
import { beforeCommit, commitOfSeq, SEQ_SLOTS, SeqClock } from './protocol-seq.js';

describe('SeqClock', () => {
  it('numbers events by their commit and their rank in it, growing in the log order', () => {
    const clock = new SeqClock();
    const at = (commit: bigint, prepare: bigint) => clock.next({ commit, prepare });
    const seqs = [at(5n, 1n), at(5n, 1n), at(5n, 2n), at(9n, 3n), at(9n, 1n)];
    expect(seqs).toEqual([
      5 * SEQ_SLOTS,
      5 * SEQ_SLOTS + 1,
      5 * SEQ_SLOTS + 2,
      9 * SEQ_SLOTS,
      9 * SEQ_SLOTS + 1,
    ]);
    expect(commitOfSeq(seqs[2] ?? 0)).toBe(5n);
    expect(beforeCommit(5n)).toEqual({ commit: 5n, prepare: -1n });
  });
});
