/**
 * A process's output with its structured log lines (one JSON object each) written as a person
 * reads them, `LEVEL message {other fields}`, so tests can look for what was said. Every field
 * is kept: a value that must never be logged is still found if it was.
 */
export function readableLogs(output: string): string {
  return output
    .split('\n')
    .map((line) => {
      // A supervisor may prefix each line of its children with their name: `[runtime] {...}`.
      const [, prefix = '', json] = /^(\[[\w-]+\] )?(\{.*)$/.exec(line) ?? [];
      if (json === undefined) return line;
      try {
        const { level, msg, ...fields } = JSON.parse(json) as Record<string, unknown>;
        delete fields.time;
        delete fields.service;
        if (typeof level !== 'string' || typeof msg !== 'string') return line;
        const rest = Object.keys(fields).length ? ` ${JSON.stringify(fields)}` : '';
        return `${prefix}${level.toUpperCase()} ${msg}${rest}`;
      } catch {
        return line;
      }
    })
    .join('\n');
}

/** The structured log lines of a process's output, parsed; other lines are left out. */
export function structuredLogLines(output: string): Record<string, unknown>[] {
  return output.split('\n').flatMap((line) => {
    if (!line.startsWith('{')) return [];
    try {
      const parsed = JSON.parse(line) as unknown;
      return typeof parsed === 'object' && parsed !== null && 'level' in parsed ? [parsed] : [];
    } catch {
      return [];
    }
  });
}
