import { describe, expect, it } from '@jest/globals';
import { diffLines, unifiedDiff } from './line-diff.js';

const lines = (count: number, prefix = 'line'): string =>
  Array.from({ length: count }, (_, at) => `${prefix} ${at + 1}\n`).join('');

describe('line diffs', () => {
  it('finds the shortest edit, keeping what both sides share', () => {
    const edit = diffLines(
      ['a', 'b', 'c', 'a', 'b', 'b', 'a'],
      ['c', 'b', 'a', 'b', 'a', 'c'],
      100,
    );
    expect(edit?.filter((line) => line.kind !== ' ')).toHaveLength(5);
    expect(edit?.filter((line) => line.kind !== '+').map((line) => line.text)).toEqual([
      'a',
      'b',
      'c',
      'a',
      'b',
      'b',
      'a',
    ]);
    expect(edit?.filter((line) => line.kind !== '-').map((line) => line.text)).toEqual([
      'c',
      'b',
      'a',
      'b',
      'a',
      'c',
    ]);
  });

  it('writes a unified diff with three lines of context and each hunk on its own', () => {
    const before = lines(20);
    const after = before.replace('line 2\n', 'line two\n').replace('line 18\n', '');
    expect(unifiedDiff('src/a.ts', before, after, 100)).toBe(
      [
        '--- a/src/a.ts',
        '+++ b/src/a.ts',
        '@@ -1,5 +1,5 @@',
        ' line 1',
        '-line 2',
        '+line two',
        ' line 3',
        ' line 4',
        ' line 5',
        '@@ -15,6 +15,5 @@',
        ' line 15',
        ' line 16',
        ' line 17',
        '-line 18',
        ' line 19',
        ' line 20',
        '',
      ].join('\n'),
    );
  });

  it('diffs a file added or removed against nothing', () => {
    expect(unifiedDiff('new.txt', '', 'one\ntwo\n', 10)).toBe(
      '--- a/new.txt\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n',
    );
    expect(unifiedDiff('old.txt', 'one\n', '', 10)).toBe(
      '--- a/old.txt\n+++ b/old.txt\n@@ -1,1 +0,0 @@\n-one\n',
    );
  });

  it('marks a last line without its newline', () => {
    expect(unifiedDiff('f', 'a\n', 'a', 10)).toBe(
      '--- a/f\n+++ b/f\n@@ -1,1 +1,1 @@\n-a\n+a\n\\ No newline at end of file\n',
    );
  });

  it('gives up past the edits it is allowed, and has nothing to say of equal texts', () => {
    expect(unifiedDiff('f', lines(50, 'old'), lines(50, 'new'), 99)).toBeUndefined();
    expect(unifiedDiff('f', lines(50, 'old'), lines(50, 'new'), 100)).toContain('+new 50');
    expect(unifiedDiff('f', lines(5), lines(5), 10)).toBeUndefined();
  });
});
