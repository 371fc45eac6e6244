export class ConfigError extends Error {}

export type Environment = Readonly<Record<string, string | undefined>>;

/** A variable's trimmed value; blank counts as unset. */
export function envText(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

export function envInteger(
  name: string,
  value: string | undefined,
  fallback: number,
  range: { readonly min: number; readonly max: number },
): number {
  const raw = envText(value);
  if (raw === undefined) return fallback;
  const parsed = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(parsed) || parsed < range.min || parsed > range.max) {
    throw new ConfigError(
      `${name} must be a whole number from ${range.min} to ${range.max}, got "${raw}"`,
    );
  }
  return parsed;
}

export const PORT_RANGE = { min: 1, max: 65535 } as const;

/** `true` or `false`; unset is false. */
export function envBoolean(name: string, value: string | undefined): boolean {
  const raw = envText(value);
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}
