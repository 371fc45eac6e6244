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

export interface LogSettings {
  readonly level: Level | 'silent';
  /** Human-readable lines instead of JSON: for a person at a terminal. */
  readonly pretty: boolean;
}

/** `BERTH_LOG_LEVEL` (default info), and pretty output only on a terminal. */
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
    pretty: stdoutIsTty === true || env.BERTH_LOG_PRETTY === 'true',
  };
}
