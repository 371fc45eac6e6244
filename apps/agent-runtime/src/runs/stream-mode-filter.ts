/** Events every stream carries, whatever modes were asked for. */
const ALWAYS = new Set(['metadata', 'error', 'end']);

/** Whether an SSE event (`values`, `messages/partial`, `updates|sub:1`) belongs to one of the modes. */
export function inModes(event: string, modes: readonly string[]): boolean {
  const base = event.split('|')[0] ?? event;
  if (ALWAYS.has(base)) return true;
  return modes.some(
    (mode) =>
      base === mode ||
      base.startsWith(`${mode}/`) ||
      (mode === 'messages-tuple' && base === 'messages'),
  );
}

/** The records of the modes asked for; all of them when none were. */
export async function* onlyModes<T extends { readonly event: string }>(
  records: AsyncIterable<T>,
  modes: readonly string[] | undefined,
): AsyncGenerator<T> {
  for await (const record of records) {
    if (!modes || modes.length === 0 || inModes(record.event, modes)) yield record;
  }
}
