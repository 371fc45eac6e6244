import { DomainError } from './domain-error.js';

/**
 * Rules a decider applies to what a command would write, so that it never decides an event its
 * read models cannot hold (a null in a NOT NULL column, a string past a length, a wrong type).
 * A refusal is a `validation` error (422) whose message starts with the field's name.
 */
export const invalid = (field: string, rule: string): DomainError =>
  new DomainError('validation', `${field} ${rule}`);

const describe = (value: unknown): string =>
  value === null ? 'null' : Array.isArray(value) ? 'a list' : `a ${typeof value}`;

/** A string of at least one character (unless `allowEmpty`) and at most `maxLength`. */
export function requireText(
  field: string,
  value: unknown,
  rules: { readonly maxLength: number; readonly allowEmpty?: boolean },
): asserts value is string {
  if (typeof value !== 'string') throw invalid(field, `must be a string, not ${describe(value)}`);
  if (value.length === 0 && !rules.allowEmpty) throw invalid(field, 'must not be empty');
  if (value.length > rules.maxLength) {
    throw invalid(field, `must be at most ${rules.maxLength} characters long`);
  }
}

/** A string as `requireText` wants it, or null. */
export function requireTextOrNull(
  field: string,
  value: unknown,
  rules: { readonly maxLength: number; readonly allowEmpty?: boolean },
): asserts value is string | null {
  if (value !== null) requireText(field, value, rules);
}

export function requireBoolean(field: string, value: unknown): asserts value is boolean {
  if (typeof value !== 'boolean')
    throw invalid(field, `must be true or false, not ${describe(value)}`);
}

/** A JSON object (not null, not a list). */
export function requireObject(
  field: string,
  value: unknown,
): asserts value is Readonly<Record<string, unknown>> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalid(field, `must be an object, not ${describe(value)}`);
  }
}

export function requireOneOf<T extends string | null>(
  field: string,
  value: unknown,
  allowed: readonly T[],
): asserts value is T {
  if (!allowed.includes(value as T)) {
    throw invalid(field, `must be one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}`);
  }
}

/** An ISO 8601 instant that `Date` reads (and PostgreSQL's timestamptz holds), or null. */
export function requireInstantOrNull(
  field: string,
  value: unknown,
): asserts value is string | null {
  if (value === null) return;
  if (typeof value !== 'string' || Number.isNaN(Date.parse(value))) {
    throw invalid(field, 'must be a date and time (ISO 8601) or null');
  }
  const year = new Date(value).getUTCFullYear();
  if (year < 1 || year > 9999) throw invalid(field, 'must be between the years 1 and 9999');
}
