import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parseEnv } from 'node:util';
import {
  checkGraphConfigFile,
  configObjectOf,
  failingFor,
  GraphConfigError,
  isRecord,
  parseGraphsSection,
  type Fail,
  type GraphSpec,
} from '#libs/graph-config';
import {
  parseAuthSection,
  parseEncryptionSection,
  parseCheckpointerSection,
  parseHttpSection,
  type CheckpointerSection,
  type HttpSection,
} from './graph-config-sections.js';
import { unreadKeyWarnings } from './graph-config-keys.js';
import { parseStoreSection, type StoreSection } from './store-config-section.js';
import { parseUiSection, type UiSection } from '../ui/ui-section.js';

export { GraphConfigError, type GraphSpec };

export interface GraphConfig {
  /** The configuration file, absolute. */
  readonly configFile: string;
  /** The directory holding the configuration file: relative paths are relative to it. */
  readonly dir: string;
  /** Graph ids in file order. */
  readonly graphs: ReadonlyMap<string, GraphSpec>;
  /** `env` given as a path: the env file, absolute. It may not exist (the reference server then goes on without it). */
  readonly envFile?: string;
  /** `env` given as an object of variables. */
  readonly env?: Readonly<Record<string, string>>;
  /** `dependencies`, absolute when they are paths (start with `.` or `/`), as given otherwise. */
  readonly dependencies: readonly string[];
  /** `node_version`, when given. */
  readonly nodeVersion?: string;
  /** `http`, when given. */
  readonly http?: HttpSection;
  /** `checkpointer`, when given. */
  readonly checkpointer?: CheckpointerSection;
  /** `store`, when given: semantic search and TTL of the long-term memory. */
  readonly store?: StoreSection;
  /** `ui` and `ui_config`: the generative UI components, when given. */
  readonly ui?: UiSection;
  /** `auth.path`: the application's `Auth` instance, `<file>:<export>`. */
  readonly auth?: { readonly file: string; readonly exportName: string };
  /** `encryption.path`: the application's encryption handlers, `<file>:<export>`. */
  readonly encryption?: { readonly file: string; readonly exportName: string };
  /** Keys and values read but not applied, each said once in the log. */
  readonly warnings: readonly string[];
}

/**
 * Reads and validates a graph configuration file in the `langgraph.json` format. What
 * `berth deploy` checks before uploading is checked first, by the same code, so both say the
 * same line; then every other section.
 */
export async function readGraphConfig(configPath: string): Promise<GraphConfig> {
  const { configFile, json } = await checkGraphConfigFile(configPath);
  return parseGraphConfig(json, configFile);
}

/** `env`: a path to an env file, or the variables themselves. */
function parseEnvSection(
  rawEnv: unknown,
  dir: string,
  fail: Fail,
): Pick<GraphConfig, 'env' | 'envFile'> {
  if (typeof rawEnv === 'string') {
    if (rawEnv === '') fail('"env" must not be empty');
    return { envFile: resolve(dir, rawEnv) };
  }
  if (isRecord(rawEnv)) {
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(rawEnv)) {
      if (typeof value !== 'string') fail(`"env": the value of ${name} must be a string`);
      env[name] = value;
    }
    return { env };
  }
  if (rawEnv !== undefined) fail('"env" must be a path to an env file or an object of variables');
  return {};
}

/** `dependencies`: local paths (resolved against the configuration's directory) or packages. */
function parseDependencies(raw: unknown, dir: string, fail: Fail): string[] {
  if (!Array.isArray(raw) || raw.some((d) => typeof d !== 'string')) {
    fail('"dependencies" must be an array of strings');
  }
  return (raw as string[]).map((d) => (d.startsWith('.') || isAbsolute(d) ? resolve(dir, d) : d));
}

/** The optional sections, each checked by its own parser; what they warn of is collected. */
function parseOptionalSections(json: Record<string, unknown>, dir: string, fail: Fail) {
  const warnings = unreadKeyWarnings(json);
  const warn = (warning: string): void => {
    warnings.push(warning);
  };
  const sections = {
    http: parseHttpSection(json['http'], dir, fail, warn),
    auth: parseAuthSection(json['auth'], dir, fail, warn),
    encryption: parseEncryptionSection(json['encryption'], dir, fail, warn),
    checkpointer: parseCheckpointerSection(json['checkpointer'], fail, warn),
    store: parseStoreSection(json['store'], dir, fail, warn),
    ui: parseUiSection(json['ui'], json['ui_config'], dir, fail, warn),
  };
  const given = Object.entries(sections).filter(([, section]) => section !== undefined);
  return { warnings, ...(Object.fromEntries(given) as Partial<typeof sections>) };
}

/**
 * Validates an already parsed configuration (no file system access). `configFile` locates
 * relative paths and names the file in errors.
 */
export function parseGraphConfig(parsed: unknown, configFile: string): GraphConfig {
  const fail = failingFor(configFile);
  const dir = dirname(configFile);
  const json = configObjectOf(parsed, fail);
  const graphs = parseGraphsSection(json['graphs'], dir, fail);
  const env = parseEnvSection(json['env'], dir, fail);
  const dependencies = parseDependencies(json['dependencies'] ?? [], dir, fail);
  const rawNodeVersion = json['node_version'];
  if (rawNodeVersion !== undefined && typeof rawNodeVersion !== 'string') {
    fail('"node_version" must be a string');
  }
  return {
    configFile,
    dir,
    graphs,
    ...parseOptionalSections(json, dir, fail),
    ...env,
    dependencies,
    ...(typeof rawNodeVersion === 'string' ? { nodeVersion: rawNodeVersion } : {}),
  };
}

/**
 * The variables the configuration gives the application: the `env` object, or the env file's
 * variables (dotenv syntax); `{}` when the env file does not exist, as the reference server does.
 */
export async function readGraphEnv(config: GraphConfig): Promise<Record<string, string>> {
  if (config.env !== undefined) return { ...config.env };
  if (config.envFile === undefined) return {};
  let text: string;
  try {
    text = await readFile(config.envFile, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new GraphConfigError(config.configFile, `cannot read env file ${config.envFile}`, {
      cause: error,
    });
  }
  const parsed = parseEnv(text);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(parsed)) {
    if (value !== undefined) env[name] = value;
  }
  return env;
}
