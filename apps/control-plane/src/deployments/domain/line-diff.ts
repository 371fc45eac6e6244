/** One line of a diff: kept (' '), removed ('-') or added ('+'). */
export type DiffLine = { readonly kind: ' ' | '-' | '+'; readonly text: string };

const CONTEXT_LINES = 3;

/**
 * The shortest edit turning `before` into `after` (Myers' O(ND) algorithm, after the common head
 * and tail are set aside), or undefined when it takes more than `maxEdits` lines added or
 * removed: the work and the memory it takes grow with the edits, and this bounds both.
 */
export function diffLines(
  before: readonly string[],
  after: readonly string[],
  maxEdits: number,
): DiffLine[] | undefined {
  let head = 0;
  while (head < before.length && head < after.length && before[head] === after[head]) head += 1;
  let tailBefore = before.length;
  let tailAfter = after.length;
  while (tailBefore > head && tailAfter > head && before[tailBefore - 1] === after[tailAfter - 1]) {
    tailBefore -= 1;
    tailAfter -= 1;
  }
  const middle = shortestEdit(
    before.slice(head, tailBefore),
    after.slice(head, tailAfter),
    maxEdits,
  );
  if (!middle) return undefined;
  const kept = (text: string): DiffLine => ({ kind: ' ', text });
  return [...before.slice(0, head).map(kept), ...middle, ...before.slice(tailBefore).map(kept)];
}

function shortestEdit(
  a: readonly string[],
  b: readonly string[],
  maxEdits: number,
): DiffLine[] | undefined {
  const most = Math.min(a.length + b.length, maxEdits);
  const offset = most + 1;
  const furthest = new Int32Array(2 * most + 3);
  const trace: Int32Array[] = [];
  for (let edits = 0; edits <= most; edits += 1) {
    trace.push(furthest.slice());
    for (let k = -edits; k <= edits; k += 2) {
      let x = cameDown(furthest, offset, k, edits)
        ? at(furthest, offset + k + 1)
        : at(furthest, offset + k - 1) + 1;
      let y = x - k;
      while (x < a.length && y < b.length && a[x] === b[y]) {
        x += 1;
        y += 1;
      }
      furthest[offset + k] = x;
      if (x >= a.length && y >= b.length) return walkBack(trace, a, b, offset);
    }
  }
  return undefined;
}

/** Whether the furthest path on diagonal k came from k + 1 (an insertion) rather than k - 1. */
function cameDown(furthest: Int32Array, offset: number, k: number, edits: number): boolean {
  return (
    k === -edits || (k !== edits && at(furthest, offset + k - 1) < at(furthest, offset + k + 1))
  );
}

const at = (array: Int32Array, index: number): number => array[index] ?? 0;

function walkBack(
  trace: readonly Int32Array[],
  a: readonly string[],
  b: readonly string[],
  offset: number,
): DiffLine[] {
  const lines: DiffLine[] = [];
  let x = a.length;
  let y = b.length;
  for (let edits = trace.length - 1; edits >= 0; edits -= 1) {
    const furthest = trace[edits] ?? new Int32Array(0);
    const k = x - y;
    const previousK = cameDown(furthest, offset, k, edits) ? k + 1 : k - 1;
    const previousX = at(furthest, offset + previousK);
    const previousY = previousX - previousK;
    while (x > previousX && y > previousY) {
      lines.push({ kind: ' ', text: a[x - 1] ?? '' });
      x -= 1;
      y -= 1;
    }
    if (edits > 0) {
      if (x === previousX) lines.push({ kind: '+', text: b[y - 1] ?? '' });
      else lines.push({ kind: '-', text: a[x - 1] ?? '' });
    }
    x = previousX;
    y = previousY;
  }
  return lines.reverse();
}

/** A text's lines; a last line without its newline is marked as diff marks it. */
export function linesOf(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  else lines.push(`${lines.pop() ?? ''}\n\\ No newline at end of file`);
  return lines;
}

/**
 * A unified diff (`--- a/path`, `+++ b/path`, hunks with three lines of context) of two texts;
 * undefined when they differ by more than `maxEdits` lines, or not at all.
 */
export function unifiedDiff(
  path: string,
  before: string,
  after: string,
  maxEdits: number,
): string | undefined {
  const lines = diffLines(linesOf(before), linesOf(after), maxEdits);
  if (!lines) return undefined;
  const hunks = hunksOf(lines);
  if (hunks.length === 0) return undefined;
  return [`--- a/${path}`, `+++ b/${path}`, ...hunks].join('\n') + '\n';
}

function hunksOf(lines: readonly DiffLine[]): string[] {
  const changed = lines.flatMap((line, at) => (line.kind === ' ' ? [] : [at]));
  const groups: { first: number; last: number }[] = [];
  for (const at of changed) {
    const group = groups.at(-1);
    if (group && at - group.last <= 2 * CONTEXT_LINES) group.last = at;
    else groups.push({ first: at, last: at });
  }
  return groups.map(({ first, last }) => {
    const start = Math.max(0, first - CONTEXT_LINES);
    const end = Math.min(lines.length, last + CONTEXT_LINES + 1);
    const before = lines.slice(0, start);
    const shown = lines.slice(start, end);
    const oldStart = before.filter((line) => line.kind !== '+').length;
    const newStart = before.filter((line) => line.kind !== '-').length;
    const oldCount = shown.filter((line) => line.kind !== '+').length;
    const newCount = shown.filter((line) => line.kind !== '-').length;
    const header = `@@ -${range(oldStart, oldCount)} +${range(newStart, newCount)} @@`;
    return [header, ...shown.map((line) => `${line.kind}${line.text}`)].join('\n');
  });
}

/** `start,count` as unified diffs write it: an empty side names the line before it. */
const range = (linesBefore: number, count: number): string =>
  `${count === 0 ? linesBefore : linesBefore + 1},${count}`;
