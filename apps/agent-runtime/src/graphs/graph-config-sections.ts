import { resolve } from 'node:path';
import { MAX_TTL_MINUTES } from '../common/thread-ttl.js';

/** The groups of Berth's routes that `http.disable_*` can take away. */
export const ROUTE_GROUPS = [
  'assistants',
  'threads',
  'runs',
  'store',
  'meta',
  'a2a',
  'mcp',
  'ui',
] as const;
export type RouteGroup = (typeof ROUTE_GROUPS)[number];

/** `http.cors`: who may call the runtime from a browser. */
export interface CorsSection {
  readonly allowOrigins?: readonly string[];
  readonly allowOriginRegex?: string;
  readonly allowMethods?: readonly string[];
  readonly allowHeaders?: readonly string[];
  readonly allowCredentials?: boolean;
  readonly exposeHeaders?: readonly string[];
  readonly maxAge?: number;
}

/** The `http` section of `langgraph.json`. */
export interface HttpSection {
  /** `http.app`: the application's own Hono app, `<file>:<export>` (export `default` when omitted). */
  readonly app?: { readonly file: string; readonly exportName: string };
  readonly disabled: ReadonlySet<RouteGroup>;
  readonly cors?: CorsSection;
}

/** Keys the server has nothing to disable for (Berth serves no webhook routes). */
const NOTHING_TO_DISABLE = ['disable_webhooks'];
/** Keys of the hosted platform's `http` section that Berth does not apply. */
const NOT_APPLIED = [
  'enable_custom_route_auth',
  'configurable_headers',
  'logging_headers',
  'middleware_order',
  'mount_prefix',
];

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const stringList = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string');

/** `<file>:<export>` against `dir`; the export is `default` when none is named. */
export function moduleExportOf(
  spec: string,
  dir: string,
): { readonly file: string; readonly exportName: string } | undefined {
  const colon = spec.lastIndexOf(':');
  const file = colon === -1 ? spec : spec.slice(0, colon);
  if (file === '') return undefined;
  return {
    file: resolve(dir, file),
    exportName: colon === -1 ? 'default' : spec.slice(colon + 1) || 'default',
  };
}

/** Reads `encryption`: `path` names the application's encryption handlers. */
export function parseEncryptionSection(
  raw: unknown,
  dir: string,
  fail: (problem: string) => never,
  warn: (warning: string) => void,
): { readonly file: string; readonly exportName: string } | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!isRecord(raw)) return fail('"encryption" must be an object');
  for (const key of Object.keys(raw)) {
    if (key !== 'path') warn(`"encryption.${key}" is not a key Berth knows: it is ignored`);
  }
  return sectionModule('encryption', raw['path'], dir, fail);
}

/** Reads `auth`: `path` names the application's `Auth` instance. */
export function parseAuthSection(
  raw: unknown,
  dir: string,
  fail: (problem: string) => never,
  warn: (warning: string) => void,
): { readonly file: string; readonly exportName: string } | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!isRecord(raw)) return fail('"auth" must be an object');
  for (const key of Object.keys(raw)) {
    if (key === 'path' || key === 'disable_studio_auth') continue;
    warn(
      key === 'openapi' || key === 'cache'
        ? `"auth.${key}" is not applied by Berth: it is ignored`
        : `"auth.${key}" is not a key Berth knows: it is ignored`,
    );
  }
  if (raw['path'] === undefined) return undefined;
  return sectionModule('auth', raw['path'], dir, fail);
}

/** The module export a section's `path` names (`<file>:<export>`); anything else fails. */
function sectionModule(
  section: string,
  path: unknown,
  dir: string,
  fail: (problem: string) => never,
): { readonly file: string; readonly exportName: string } {
  if (typeof path !== 'string') return fail(`"${section}.path" must be "<file>:<export>"`);
  return moduleExportOf(path, dir) ?? fail(`"${section}.path" ${path} has no file before ":"`);
}

/**
 * Reads `http`; `fail` throws with the problem, `warn` records a key that is not applied.
 * Relative paths are relative to `dir`.
 */
export function parseHttpSection(
  raw: unknown,
  dir: string,
  fail: (problem: string) => never,
  warn: (warning: string) => void,
): HttpSection | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!isRecord(raw)) return fail('"http" must be an object');
  const disabled = new Set<RouteGroup>();
  let app: HttpSection['app'];
  let cors: CorsSection | undefined;
  for (const [key, value] of Object.entries(raw)) {
    const group = ROUTE_GROUPS.find((name) => key === `disable_${name}`);
    if (group) {
      if (typeof value !== 'boolean') fail(`"http.${key}" must be true or false`);
      if (value) disabled.add(group);
    } else if (key === 'app') {
      if (typeof value !== 'string' || value === '') fail('"http.app" must be "<file>:<export>"');
      const spec = value;
      const colon = spec.lastIndexOf(':');
      const file = colon === -1 ? spec : spec.slice(0, colon);
      if (file === '') fail(`"http.app" ${spec} has no file before ":"`);
      app = {
        file: resolve(dir, file),
        exportName: colon === -1 ? 'default' : spec.slice(colon + 1) || 'default',
      };
    } else if (key === 'cors') {
      cors = value === null ? undefined : parseCors(value, fail);
    } else if (NOTHING_TO_DISABLE.includes(key)) {
      if (typeof value !== 'boolean') fail(`"http.${key}" must be true or false`);
    } else if (NOT_APPLIED.includes(key)) {
      warn(`"http.${key}" is not supported by Berth yet: it is ignored`);
    } else {
      warn(`"http.${key}" is not a key Berth knows: it is ignored`);
    }
  }
  return { disabled, ...(app ? { app } : {}), ...(cors ? { cors } : {}) };
}

function parseCors(raw: unknown, fail: (problem: string) => never): CorsSection {
  if (!isRecord(raw)) return fail('"http.cors" must be an object');
  const lists = ['allow_origins', 'allow_methods', 'allow_headers', 'expose_headers'] as const;
  for (const key of lists) {
    if (raw[key] !== undefined && !stringList(raw[key])) {
      fail(`"http.cors.${key}" must be an array of strings`);
    }
  }
  const regex = raw['allow_origin_regex'];
  if (regex !== undefined) {
    if (typeof regex !== 'string') fail('"http.cors.allow_origin_regex" must be a string');
    try {
      new RegExp(regex);
    } catch {
      fail(`"http.cors.allow_origin_regex" is not a valid regular expression`);
    }
  }
  const credentials = raw['allow_credentials'];
  if (credentials !== undefined && typeof credentials !== 'boolean') {
    fail('"http.cors.allow_credentials" must be true or false');
  }
  const maxAge = raw['max_age'];
  if (maxAge !== undefined && (!Number.isInteger(maxAge) || (maxAge as number) < 0)) {
    fail('"http.cors.max_age" must be a whole number of seconds');
  }
  return {
    ...(raw['allow_origins'] ? { allowOrigins: raw['allow_origins'] as string[] } : {}),
    ...(typeof regex === 'string' ? { allowOriginRegex: regex } : {}),
    ...(raw['allow_methods'] ? { allowMethods: raw['allow_methods'] as string[] } : {}),
    ...(raw['allow_headers'] ? { allowHeaders: raw['allow_headers'] as string[] } : {}),
    ...(typeof credentials === 'boolean' ? { allowCredentials: credentials } : {}),
    ...(raw['expose_headers'] ? { exposeHeaders: raw['expose_headers'] as string[] } : {}),
    ...(typeof maxAge === 'number' ? { maxAge } : {}),
  };
}

/** `checkpointer`: a default TTL for the threads the application makes. */
export interface CheckpointerSection {
  /** Minutes a thread may be left alone before it is deleted, for threads created without a TTL. */
  readonly defaultTtlMinutes?: number;
}

/** Reads `checkpointer.ttl`: `default_ttl` (minutes) and `strategy` ("delete"). */
export function parseCheckpointerSection(
  raw: unknown,
  fail: (problem: string) => never,
  warn: (warning: string) => void,
): CheckpointerSection | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!isRecord(raw)) return fail('"checkpointer" must be an object');
  for (const key of Object.keys(raw)) {
    if (key !== 'ttl') warn(`"checkpointer.${key}" is not a key Berth knows: it is ignored`);
  }
  const ttl = raw['ttl'];
  if (ttl === undefined || ttl === null) return {};
  if (!isRecord(ttl)) return fail('"checkpointer.ttl" must be an object');
  for (const key of Object.keys(ttl)) {
    if (key === 'sweep_interval_minutes') {
      warn(
        '"checkpointer.ttl.sweep_interval_minutes" is not applied: expired threads are swept every BERTH_THREAD_SWEEP_SECONDS (60 s by default)',
      );
    } else if (key !== 'default_ttl' && key !== 'strategy') {
      warn(`"checkpointer.ttl.${key}" is not a key Berth knows: it is ignored`);
    }
  }
  if (ttl['strategy'] !== undefined && ttl['strategy'] !== 'delete') {
    fail('"checkpointer.ttl.strategy" must be "delete"');
  }
  const minutes = ttl['default_ttl'];
  if (minutes === undefined || minutes === null) return {};
  if (typeof minutes !== 'number' || !(minutes > 0) || minutes > MAX_TTL_MINUTES) {
    return fail(
      `"checkpointer.ttl.default_ttl" must be minutes, above 0 and at most ${MAX_TTL_MINUTES}`,
    );
  }
  return { defaultTtlMinutes: minutes };
}
