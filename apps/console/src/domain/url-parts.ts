/** A run of separators and what follows it up to the next one. */
const PIECE = /[/.\-_?&=#:]*[^/.\-_?&=#:]*/g;

/**
 * A URL cut before each separator (`.`, `/`, `-`, `:`, `?`…), where a long one may wrap: the
 * scheme's `://` stays with the scheme, so no line starts with it.
 */
export function urlParts(url: string): string[] {
  const parts: string[] = [];
  for (const piece of url.match(PIECE) ?? []) {
    if (piece === '') continue;
    const scheme = parts.length === 1 && piece.startsWith('://') ? parts.pop() : undefined;
    parts.push(`${scheme ?? ''}${piece}`);
  }
  return parts;
}
