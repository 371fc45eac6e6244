import { readFile, stat } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parseEnv } from 'node:util';
import {
  parseAuthSection,
  parseCheckpointerSection,
  parseHttpSection,
  type CheckpointerSection,
  type HttpSection,
} from './graph-config-sections.js';
import { unreadKeyWarnings } from './graph-config-keys.js';
import { parseStoreSection, type StoreSection } from './store-config-section.js';
import { parseUiSection, type UiSection } from '../ui/ui-section.js';

/** A problem with a graph configuration file (`langgraph.json`); the message names the file. */
export class GraphConfigError extends Error {
  override readonly name = 'GraphConfigError';

  constructor(
    readonly configFile: string,
    problem: string,
    options?: ErrorOptions,
  ) {
    super(`${configFile}: ${problem}`, options);
  }
}

/** One entry of `graphs`: `"./src/agent.ts:graph"` or `{ "path": "...", "description": "..." }`. */
export interface GraphSpec {
  /** The graph module, absolute. */
  readonly file: string;
  /** The export holding the graph or the function returning it. */
  readonly exportName: string;
  readonly description?: string;
}

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
  /** Keys and values read but not applied, each said once in the log. */
  readonly warnings: readonly string[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads and validates a graph configuration file in the `langgraph.json` format. Checks that
 * every graph spec has the form `<file>:<export>` and that every graph file exists.
 */
export async function readGraphConfig(configPath: string): Promise<GraphConfig> {
  const configFile = resolve(configPath);
  let text: string;
  try {
    text = await readFile(configFile, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const problem =
      code === 'ENOENT'
        ? 'graph configuration file not found'
        : `cannot read the graph configuration file (${code ?? String(error)})`;
    throw new GraphConfigError(configFile, problem, { cause: error });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new GraphConfigError(configFile, `invalid JSON: ${detail}`, { cause: error });
  }
  const config = parseGraphConfig(json, configFile);
  await Promise.all(
    [...config.graphs].map(async ([graphId, spec]) => {
      const found = await stat(spec.file).catch(() => undefined);
      if (found === undefined) {
        throw new GraphConfigError(
          configFile,
          `graph "${graphId}": file ${spec.file} does not exist`,
        );
      }
      if (!found.isFile()) {
        throw new GraphConfigError(configFile, `graph "${graphId}": ${spec.file} is not a file`);
      }
    }),
  );
  return config;
}

type Fail = (problem: string) => never;

/** One entry of `graphs`: `"<file>:<export>"`, or an object with `path` and `description`. */
function parseGraphSpec(graphId: string, raw: unknown, dir: string, fail: Fail): GraphSpec {
  if (graphId === '') fail('"graphs" has an empty graph id');
  let spec: unknown = raw;
  let description: string | undefined;
  if (isRecord(raw)) {
    spec = raw['path'];
    const rawDescription = raw['description'];
    if (rawDescription !== undefined && typeof rawDescription !== 'string') {
      fail(`graph "${graphId}": "description" must be a string`);
    }
    description = rawDescription;
  }
  if (typeof spec !== 'string') {
    return fail(
      `graph "${graphId}": the spec must be a string "<file>:<export>" or an object with "path"`,
    );
  }
  const colon = spec.lastIndexOf(':');
  const filePart = colon === -1 ? spec : spec.slice(0, colon);
  const exportName = colon === -1 ? '' : spec.slice(colon + 1);
  if (colon === -1 || exportName === '') {
    fail(
      `graph "${graphId}": spec "${spec}" must name an export, as in "${filePart || './src/graph.ts'}:graph"`,
    );
  }
  if (filePart === '') fail(`graph "${graphId}": spec "${spec}" has no file before ":"`);
  return {
    file: resolve(dir, filePart),
    exportName,
    ...(description === undefined ? {} : { description }),
  };
}

function parseGraphsSection(rawGraphs: unknown, dir: string, fail: Fail): Map<string, GraphSpec> {
  if (!isRecord(rawGraphs)) return fail('"graphs" must be an object mapping graph ids to specs');
  const graphs = new Map<string, GraphSpec>();
  for (const [graphId, raw] of Object.entries(rawGraphs)) {
    graphs.set(graphId, parseGraphSpec(graphId, raw, dir, fail));
  }
  if (graphs.size === 0) fail('"graphs" names no graph');
  return graphs;
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
export function parseGraphConfig(json: unknown, configFile: string): GraphConfig {
  const fail: Fail = (problem) => {
    throw new GraphConfigError(configFile, problem);
  };
  const dir = dirname(configFile);
  if (!isRecord(json)) return fail('the configuration must be a JSON object');
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
