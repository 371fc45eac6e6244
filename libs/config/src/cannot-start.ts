/**
 * How a process that cannot start tells the process that started it why, beside what it says to
 * a person: one line on stderr, this mark and the reason as a JSON string.
 */
const MARK = 'berth-cannot-start: ';

export function cannotStartLine(reason: string): string {
  return `${MARK}${JSON.stringify(reason)}`;
}

/** The reason a cannot-start line gives; undefined for any other line. */
export function cannotStartReasonOf(line: string): string | undefined {
  if (!line.startsWith(MARK)) return undefined;
  try {
    const reason = JSON.parse(line.slice(MARK.length)) as unknown;
    return typeof reason === 'string' ? reason : undefined;
  } catch {
    return undefined;
  }
}
