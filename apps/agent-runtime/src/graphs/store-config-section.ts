import { MAX_TTL_MINUTES } from '../common/thread-ttl.js';
import { moduleExportOf } from './graph-config-sections.js';

/** `store.index`: what is embedded for semantic search, and by what. */
export interface StoreIndexSection {
  /** A provider and model (`openai:text-embedding-3-small`), or a module function `<file>:<export>`. */
  readonly embed:
    | { readonly kind: 'provider'; readonly provider: string; readonly model: string }
    | { readonly kind: 'module'; readonly file: string; readonly exportName: string };
  readonly dims: number;
  /** JSON paths of the value embedded by default; `["$"]` (the whole value) when not given. */
  readonly fields: readonly string[];
}

/** `store.ttl`: how long items live. */
export interface StoreTtlSection {
  /** Minutes an item lives when put without a TTL; none: items live until deleted. */
  readonly defaultTtlMinutes?: number;
  /** Whether reads push an item's expiry back by default. */
  readonly refreshOnRead: boolean;
  readonly sweepIntervalMinutes?: number;
}

export interface StoreSection {
  readonly index?: StoreIndexSection;
  readonly ttl: StoreTtlSection;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const KNOWN = { store: ['index', 'ttl'], index: ['embed', 'dims', 'fields'], ttl: [] };
const TTL_KEYS = ['default_ttl', 'refresh_on_read', 'sweep_interval_minutes'];

/** Reads the `store` section of `langgraph.json`; relative module paths are relative to `dir`. */
export function parseStoreSection(
  raw: unknown,
  dir: string,
  fail: (problem: string) => never,
  warn: (warning: string) => void,
): StoreSection | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!isRecord(raw)) return fail('"store" must be an object');
  for (const key of Object.keys(raw)) {
    if (!KNOWN.store.includes(key)) warn(`"store.${key}" is not a key Berth knows: it is ignored`);
  }
  const index = parseIndex(raw['index'], dir, fail, warn);
  const ttl = parseTtl(raw['ttl'], fail, warn);
  return { ...(index ? { index } : {}), ttl };
}

function parseIndex(
  raw: unknown,
  dir: string,
  fail: (problem: string) => never,
  warn: (warning: string) => void,
): StoreIndexSection | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!isRecord(raw)) return fail('"store.index" must be an object');
  for (const key of Object.keys(raw)) {
    if (!KNOWN.index.includes(key)) {
      warn(`"store.index.${key}" is not a key Berth knows: it is ignored`);
    }
  }
  const { embed, dims, fields } = raw;
  if (typeof embed !== 'string' || embed === '') {
    return fail(
      '"store.index.embed" must name a provider ("openai:text-embedding-3-small") or "<file>:<function>"',
    );
  }
  if (!Number.isInteger(dims) || (dims as number) < 1 || (dims as number) > 16_000) {
    return fail('"store.index.dims" must be a whole number from 1 to 16000');
  }
  if (
    fields !== undefined &&
    (!Array.isArray(fields) || fields.some((f) => typeof f !== 'string' || f === ''))
  ) {
    return fail('"store.index.fields" must be an array of JSON paths');
  }
  return {
    embed: embedOf(embed, dir, fail),
    dims: dims as number,
    fields: (fields as string[] | undefined) ?? ['$'],
  };
}

/** A module path starts with `.` or `/` or names a script file; anything else is `provider:model`. */
function embedOf(
  spec: string,
  dir: string,
  fail: (problem: string) => never,
): StoreIndexSection['embed'] {
  const file = spec.slice(0, spec.lastIndexOf(':') === -1 ? spec.length : spec.lastIndexOf(':'));
  if (spec.startsWith('.') || spec.startsWith('/') || /\.[cm]?[jt]sx?$/.test(file)) {
    const module = moduleExportOf(spec, dir);
    if (!module) return fail(`"store.index.embed" ${spec} has no file before ":"`);
    return { kind: 'module', ...module };
  }
  const colon = spec.indexOf(':');
  if (colon <= 0 || colon === spec.length - 1) {
    return fail(`"store.index.embed" ${spec} must be "<provider>:<model>" or "<file>:<function>"`);
  }
  return { kind: 'provider', provider: spec.slice(0, colon), model: spec.slice(colon + 1) };
}

function parseTtl(
  raw: unknown,
  fail: (problem: string) => never,
  warn: (warning: string) => void,
): StoreTtlSection {
  if (raw === undefined || raw === null) return { refreshOnRead: true };
  if (!isRecord(raw)) return fail('"store.ttl" must be an object');
  for (const key of Object.keys(raw)) {
    if (!TTL_KEYS.includes(key)) warn(`"store.ttl.${key}" is not a key Berth knows: it is ignored`);
  }
  const minutes = raw['default_ttl'];
  if (
    minutes !== undefined &&
    minutes !== null &&
    (typeof minutes !== 'number' || !(minutes > 0) || minutes > MAX_TTL_MINUTES)
  ) {
    fail(`"store.ttl.default_ttl" must be minutes, above 0 and at most ${MAX_TTL_MINUTES}`);
  }
  const refresh = raw['refresh_on_read'];
  if (refresh !== undefined && typeof refresh !== 'boolean') {
    fail('"store.ttl.refresh_on_read" must be true or false');
  }
  const sweep = raw['sweep_interval_minutes'];
  if (sweep !== undefined && sweep !== null && (typeof sweep !== 'number' || !(sweep > 0))) {
    fail('"store.ttl.sweep_interval_minutes" must be minutes, above 0');
  }
  return {
    refreshOnRead: refresh !== false,
    ...(typeof minutes === 'number' ? { defaultTtlMinutes: minutes } : {}),
    ...(typeof sweep === 'number' ? { sweepIntervalMinutes: sweep } : {}),
  };
}
