import type { Secret } from '#libs/control-plane-client';
import type { DotenvEntries } from './dotenv.js';

export type { Secret };

/** Names the platform sets itself for a deployment's runtime; a secret may not override them. */
const RESERVED = new Set(['DATABASE_URL', 'EVENTSTORE_URL', 'PATH', 'HOME', 'NODE_OPTIONS']);
const RESERVED_PREFIX = 'BERTH_';
/** What the platform accepts as a secret's name: it becomes an environment variable. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Whether a variable of the project's .env is kept from the deployment, and why. */
export function withheldReason(name: string): 'reserved' | 'invalid' | undefined {
  if (RESERVED.has(name) || name.startsWith(RESERVED_PREFIX)) return 'reserved';
  if (!ENV_NAME.test(name)) return 'invalid';
  return undefined;
}

export interface SecretSelection {
  readonly secrets: Secret[];
  /** Names left out: the API key, BERTH_* and the platform's reserved variables, bad names. */
  readonly withheld: string[];
}

/**
 * The deployment's secrets from the project's .env: every variable but the CLI's own
 * (BERTH_API_KEY, BERTH_HOST_URL and any other BERTH_*) and those the platform reserves.
 */
export function secretsFromDotenv(entries: DotenvEntries): SecretSelection {
  const secrets: Secret[] = [];
  const withheld: string[] = [];
  for (const [name, value] of entries) {
    if (withheldReason(name)) withheld.push(name);
    else secrets.push({ name, value });
  }
  return { secrets, withheld };
}
