import type { Level } from 'pino';

export const LOG_LEVELS: readonly (Level | 'silent')[] = [
  'fatal',
  'error',
  'warn',
  'info',
  'debug',
  'trace',
  'silent',
];

export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface LogSettings {
  readonly level: Level | 'silent';
  /** Human-readable lines instead of JSON: for a person at a terminal. */
  readonly pretty: boolean;
}

/** `BERTH_LOG_LEVEL` (default info), and the format `logFormatFrom` chooses. */
export function logSettingsFrom(
  env: NodeJS.ProcessEnv,
  stdoutIsTty: boolean | undefined,
): LogSettings {
  const asked = env.BERTH_LOG_LEVEL?.trim().toLowerCase();
  if (asked && !LOG_LEVELS.includes(asked as Level)) {
    throw new Error(`BERTH_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}; got "${asked}"`);
  }
  return {
    level: (asked as Level | undefined) ?? 'info',
    pretty: logFormatFrom(env, stdoutIsTty) === 'pretty',
  };
}

/**
 * The format asked for (`BERTH_LOG_FORMAT=json|pretty`, or the older `BERTH_LOG_PRETTY=true|false`),
 * else readable lines on a terminal and JSON lines anywhere else.
 */
export function logFormatFrom(env: NodeJS.ProcessEnv, stdoutIsTty: boolean | undefined): LogFormat {
  return askedLogFormat(env) ?? (stdoutIsTty === true ? 'pretty' : 'json');
}

/** The format the environment names, if it names one. */
export function askedLogFormat(env: NodeJS.ProcessEnv): LogFormat | undefined {
  const format = env.BERTH_LOG_FORMAT?.trim().toLowerCase();
  if (format) {
    if (!LOG_FORMATS.includes(format as LogFormat)) {
      throw new Error(`BERTH_LOG_FORMAT must be json or pretty; got "${format}"`);
    }
    return format as LogFormat;
  }
  const pretty = env.BERTH_LOG_PRETTY?.trim().toLowerCase();
  if (!pretty) return undefined;
  if (pretty !== 'true' && pretty !== 'false') {
    throw new Error(`BERTH_LOG_PRETTY must be true or false; got "${pretty}"`);
  }
  return pretty === 'true' ? 'pretty' : 'json';
}

/**
 * What a process whose output goes to a terminal through this one (a supervisor's child, writing
 * to a pipe) is told: the format asked for, else the one this process's own stdout calls for.
 */
export function childLogEnvironment(
  env: NodeJS.ProcessEnv,
  stdoutIsTty: boolean | undefined,
): { readonly BERTH_LOG_FORMAT: LogFormat } {
  return { BERTH_LOG_FORMAT: logFormatFrom(env, stdoutIsTty) };
}
