/**
 * A list in a query string, in every spelling clients use: repeated (`?x=a&x=b`), comma-separated
 * (`?x=a,b`), or a JSON array (`?x=["a","b"]`, as the official SDK sends arrays). For
 * `@Transform(toQueryList)`; anything else is left for the validators to refuse.
 */
export function toQueryList({ value }: { value: unknown }): unknown {
  if (typeof value !== 'string') return value;
  const text = value.trim();
  if (text.startsWith('[')) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return value;
    }
  }
  return text.split(',');
}
