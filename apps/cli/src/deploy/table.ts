/**
 * Rows as a plain text table: a header, then one line per row, columns padded to their widest
 * cell and separated by two spaces; the last column is not padded. Empty cells show "-".
 */
export function formatTable(
  headers: readonly string[],
  rows: readonly (readonly (string | null | undefined)[])[],
): string {
  const cells = [headers, ...rows].map((row) =>
    headers.map((_header, column) => {
      const cell = row[column];
      return cell === null || cell === undefined || cell === '' ? '-' : cell;
    }),
  );
  const widths = headers.map((_header, column) =>
    Math.max(...cells.map((row) => (row[column] ?? '').length)),
  );
  return cells
    .map((row) =>
      row
        .map((cell, column) =>
          column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0),
        )
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
