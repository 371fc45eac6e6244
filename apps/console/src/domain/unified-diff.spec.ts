import { diffRows, diffStat } from './unified-diff';

const DIFF = [
  '--- a/src/helper.ts',
  '+++ b/src/helper.ts',
  '@@ -1,2 +1,2 @@',
  ' export const greeting = "hello";',
  '-export const answer = 41;',
  '+export const answer = 42;',
  '--- not a header inside a hunk',
  '\\ No newline at end of file',
  '',
].join('\n');

describe('unified diffs in the console', () => {
  it('tells headers, hunks, added, removed and kept lines apart', () => {
    expect(diffRows(DIFF).map((row) => row.kind)).toEqual([
      'file',
      'file',
      'hunk',
      'context',
      'removed',
      'added',
      'removed',
      'note',
    ]);
  });

  it('counts the lines added and removed', () => {
    expect(diffStat(DIFF)).toEqual({ added: 1, removed: 2 });
  });
});
