export type DiffRowKind = 'file' | 'hunk' | 'added' | 'removed' | 'context' | 'note';

/** One line of a unified diff, and what it is. */
export type DiffRow = { readonly kind: DiffRowKind; readonly text: string };

/** The lines of a unified diff as the viewer shows them: headers, hunks, lines added and removed. */
export function diffRows(diff: string): DiffRow[] {
  const lines = diff.endsWith('\n') ? diff.slice(0, -1).split('\n') : diff.split('\n');
  let inHunk = false;
  return lines.map((text): DiffRow => {
    if (text.startsWith('@@')) {
      inHunk = true;
      return { kind: 'hunk', text };
    }
    if (!inHunk && (text.startsWith('--- ') || text.startsWith('+++ '))) {
      return { kind: 'file', text };
    }
    if (text.startsWith('+')) return { kind: 'added', text };
    if (text.startsWith('-')) return { kind: 'removed', text };
    if (text.startsWith('\\')) return { kind: 'note', text };
    return { kind: 'context', text };
  });
}

/** How many lines a diff adds and removes. */
export function diffStat(diff: string): { added: number; removed: number } {
  const rows = diffRows(diff);
  return {
    added: rows.filter((row) => row.kind === 'added').length,
    removed: rows.filter((row) => row.kind === 'removed').length,
  };
}
