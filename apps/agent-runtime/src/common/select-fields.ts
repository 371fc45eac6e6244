/** A search's `select`: only the named fields of each result, or all of them without one. */
export function selectFields<Resource extends object>(
  resource: Resource,
  select: readonly string[] | undefined,
): Partial<Resource> {
  if (!select) return resource;
  return Object.fromEntries(
    Object.entries(resource).filter(([field]) => select.includes(field)),
  ) as Partial<Resource>;
}
