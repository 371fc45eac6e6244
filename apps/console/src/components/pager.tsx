/**
 * Offset paging, as Berth's lists page: the next page exists while a page comes back full.
 */
export function Pager({
  offset,
  pageSize,
  shown,
  onOffset,
}: {
  readonly offset: number;
  readonly pageSize: number;
  /** How many the current page holds. */
  readonly shown: number;
  readonly onOffset: (offset: number) => void;
}) {
  return (
    <nav className="pager" aria-label="Pages">
      <button
        type="button"
        disabled={offset === 0}
        onClick={() => onOffset(Math.max(0, offset - pageSize))}
      >
        Previous
      </button>
      <span>{shown === 0 ? '—' : `${offset + 1}–${offset + shown}`}</span>
      <button type="button" disabled={shown < pageSize} onClick={() => onOffset(offset + pageSize)}>
        Next
      </button>
    </nav>
  );
}
