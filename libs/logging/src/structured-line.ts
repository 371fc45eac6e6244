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
    return { level: parsed.level.toUpperCase(), message: `${parsed.msg}${requestId}` };
  } catch {
    return { level: defaultLevel, message: line };
  }
}
