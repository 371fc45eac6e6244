/** A log line as a person reads it: when (time of day, UTC), how serious, what. */
export interface ReadableLogLine {
  readonly time: string;
  readonly level: string;
  readonly text: string;
}

type Fields = Record<string, unknown>;

function parsedObject(message: string): Fields | undefined {
  if (!message.startsWith('{')) return undefined;
  try {
    const parsed: unknown = JSON.parse(message);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Fields)
      : undefined;
  } catch {
    return undefined;
  }
}

/** `POST /threads 200 in 3.2 ms` for a request line. */
function requestSummary({ method, path, status, ms }: Fields): string | undefined {
  if (typeof method !== 'string' || typeof path !== 'string' || typeof status !== 'number') {
    return undefined;
  }
  return `${method} ${path} ${status}${typeof ms === 'number' ? ` in ${ms} ms` : ''}`;
}

/**
 * A build or deploy log record made readable: a runtime's structured (JSON) line shows its level
 * and message (a request's method, path and status), not its JSON and a second timestamp.
 */
export function readableLogLine(record: {
  readonly timestamp: string;
  readonly message: string;
}): ReadableLogLine {
  const time = record.timestamp.replace(/^.*T/, '').replace(/Z$/, '');
  const fields = parsedObject(record.message);
  if (!fields || typeof fields.msg !== 'string') return { time, level: '', text: record.message };
  const level = typeof fields.level === 'string' ? fields.level.toUpperCase() : '';
  const request = requestSummary(fields);
  return { time, level, text: request ? `${fields.msg}: ${request}` : fields.msg };
}
