import { pino, type Logger } from 'pino';
import pretty from 'pino-pretty';
import { currentRequestId } from './request-context.js';
import type { LogSettings } from './log-settings.js';

export type { Logger } from 'pino';

/** Wherever a key or a token could sit in what is logged, it is replaced before writing. */
const REDACTED_PATHS = [
  'headers.authorization',
  'headers["x-api-key"]',
  'headers.cookie',
  '*.headers.authorization',
  '*.headers["x-api-key"]',
  '*.headers.cookie',
  'apiKey',
  'api_key',
  'password',
  'secret',
  'token',
];

/**
 * The process's logger: one JSON object a line (`time`, `level`, `service`, `msg`, and the
 * `request_id` of the request being served), or readable lines on a terminal.
 */
export function createLogger(
  service: string,
  settings: LogSettings,
  /** Where the lines go: stdout unless given (a test's stream). */
  destination?: NodeJS.WritableStream,
): Logger {
  const options = {
    level: settings.level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
    mixin: () => {
      const requestId = currentRequestId();
      return requestId ? { request_id: requestId } : {};
    },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  };
  // Redaction happens as a line is made, before either format writes it.
  if (!settings.pretty) return pino(options, destination ?? pino.destination({ sync: true }));
  return pino(
    options,
    pretty({
      colorize: destination === undefined,
      singleLine: true,
      ignore: 'pid,hostname,service',
      sync: true,
      ...(destination ? { destination } : {}),
    }),
  );
}
