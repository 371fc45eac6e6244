/**
 * A structured log line (one JSON object with `level` and `msg`, as Berth's runtime and pino
 * write) shown as its level and message, its request id kept; any other line as it is.
 */
export function readLogLine(
  line: string,
  defaultLevel: string,
): { level: string; message: string } {
  if (!line.startsWith('{')) return { level: defaultLevel, message: line };
  try {
    const parsed = JSON.parse(line) as Record<string, unknown>;
    if (typeof parsed.level !== 'string' || typeof parsed.msg !== 'string') {
      return { level: defaultLevel, message: line };
    }
    const requestId = typeof parsed.request_id === 'string' ? ` [${parsed.request_id}]` : '';
    return {
      level: parsed.level.toUpperCase(),
      message: `${parsed.msg}${requestOf(parsed)}${requestId}`,
    };
  } catch {
    return { level: defaultLevel, message: line };
  }
}

/** What a request line says of its request: `: GET /threads 200 in 3.2 ms`; nothing otherwise. */
function requestOf(line: Record<string, unknown>): string {
  const { method, path, status, ms } = line;
  if (typeof method !== 'string' || typeof path !== 'string' || typeof status !== 'number')
    return '';
  return `: ${method} ${path} ${status}${typeof ms === 'number' ? ` in ${ms} ms` : ''}`;
}
