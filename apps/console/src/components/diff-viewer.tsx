import { diffRows } from '../domain/unified-diff';

const MARK_LABELS = { added: 'added', removed: 'removed' } as const;

/** A unified diff, one line per row: added lines green, removed lines red, hunks marked. */
export function DiffViewer({ path, diff }: { readonly path: string; readonly diff: string }) {
  return (
    <pre className="diff-view" aria-label={`Diff of ${path}`} tabIndex={0}>
      {diffRows(diff).map((row, at) => (
        <span
          // Lines repeat; their place in the diff is what tells them apart.
          key={at}
          className={`diff-line diff-line-${row.kind}`}
          data-kind={row.kind}
          title={row.kind === 'added' || row.kind === 'removed' ? MARK_LABELS[row.kind] : undefined}
        >
          {row.text}
          {'\n'}
        </span>
      ))}
    </pre>
  );
}
