/** Where `getLogger()` of `@langchain/langgraph-sdk/logging` looks for the server's logger. */
const SDK_LOGGER = Symbol.for('langgraph.api.sdk-logger');

const LEVELS = ['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly'] as const;
export type LogLevel = (typeof LEVELS)[number];

type Meta = Record<string, unknown>;
type LevelMethod = (message: unknown, ...meta: unknown[]) => ServerLogger;

/** The leveled logger a LangGraph server gives applications (winston's shape, as the JS server). */
export type ServerLogger = Record<LogLevel, LevelMethod> & {
  log(level: LogLevel, message: unknown, ...meta: unknown[]): ServerLogger;
  child(meta: Meta): ServerLogger;
  isLevelEnabled(level: LogLevel): boolean;
  level: LogLevel;
};

export function logLevelOf(value: string | undefined): LogLevel {
  const level = value?.trim().toLowerCase();
  return (LEVELS as readonly string[]).includes(level ?? '') ? (level as LogLevel) : 'info';
}

function textOf(message: unknown): string {
  if (typeof message === 'string') return message;
  if (message instanceof Error) return message.stack ?? message.message;
  try {
    return JSON.stringify(message);
  } catch {
    return String(message);
  }
}

function metaOf(parts: readonly unknown[], base: Meta): Meta {
  const meta: Meta = { ...base };
  for (const part of parts) {
    if (part instanceof Error) meta.error = part.message;
    else if (part && typeof part === 'object') Object.assign(meta, part);
    else if (part !== undefined) meta.detail = part;
  }
  return meta;
}

/**
 * A logger that writes one line per entry (`level message {meta}`), errors and warnings to
 * stderr, the rest to stdout: on a deployment, both land in its deploy log.
 */
export function createServerLogger(
  level: LogLevel,
  write: (line: string, toErrors: boolean) => void,
  base: Meta = {},
): ServerLogger {
  const enabled = (candidate: LogLevel): boolean =>
    LEVELS.indexOf(candidate) <= LEVELS.indexOf(level);
  const logger = {
    level,
    isLevelEnabled: enabled,
    log(at: LogLevel, message: unknown, ...meta: unknown[]): ServerLogger {
      if (!enabled(at)) return logger;
      const extra = metaOf(meta, base);
      const suffix = Object.keys(extra).length > 0 ? ` ${textOf(extra)}` : '';
      write(`${at}: ${textOf(message)}${suffix}`, at === 'error' || at === 'warn');
      return logger;
    },
    child(meta: Meta): ServerLogger {
      return createServerLogger(level, write, { ...base, ...meta });
    },
  } as ServerLogger;
  for (const at of LEVELS) {
    logger[at] = (message, ...meta) => logger.log(at, message, ...meta);
  }
  return logger;
}

/** Gives the application's `getLogger()` a logger, before its modules are imported. */
export function registerServerLogger(logger: ServerLogger): void {
  (globalThis as Record<symbol, unknown>)[SDK_LOGGER] = logger;
}

export const processLogger = (level: LogLevel): ServerLogger =>
  createServerLogger(level, (line, toErrors) => {
    (toErrors ? process.stderr : process.stdout).write(`${line}\n`);
  });
