/** A search's `select`: only the named fields of each result, or all of them without one. */
export function selectFields(
  resource: Record<string, unknown>,
  select: readonly string[] | undefined,
): Record<string, unknown> {
  if (!select) return resource;
  return Object.fromEntries(Object.entries(resource).filter(([field]) => select.includes(field)));
}
