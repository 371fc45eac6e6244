import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type NamespacedUnregister, register } from 'tsx/esm/api';
import type { GraphConfig, GraphSpec } from './graph-config.js';

/** A graph module failed to load or did not give a graph; the message names the graph. */
export class GraphLoadError extends Error {
  override readonly name = 'GraphLoadError';

  constructor(
    readonly graphId: string,
    problem: string,
    options?: ErrorOptions,
  ) {
    super(`graph "${graphId}": ${problem}`, options);
  }
}

/**
 * What Berth uses of a compiled LangGraph graph (`CompiledStateGraph` / `Pregel`), checked
 * structurally: the application's @langchain/langgraph is not our module instance.
 */
export interface CompiledGraphLike {
  invoke(input: unknown, options?: Record<string, unknown>): Promise<unknown>;
  stream(input: unknown, options?: Record<string, unknown>): Promise<AsyncIterable<unknown>>;
  getState(config: Record<string, unknown>, options?: Record<string, unknown>): Promise<unknown>;
  /** Assigned by the server before running, as the reference server does. */
  checkpointer?: unknown;
  store?: unknown;
  name?: string;
}

/** The config a graph factory gets: the run's (or assistant's) config. */
export interface GraphFactoryConfig {
  configurable: Record<string, unknown>;
  [key: string]: unknown;
}

/** The second argument of a graph factory, as the reference server passes it. */
export interface GraphFactoryRuntime {
  accessContext: string;
  executionRuntime: { context?: unknown } | null;
}

/** A graph from a graph configuration. */
export interface LoadedGraph {
  readonly graphId: string;
  readonly spec: GraphSpec;
  /** `graph`: the export is a graph; `factory`: a function returning one. */
  readonly kind: 'graph' | 'factory';
  /** The graph, for a factory the one it returned for `{ configurable: {} }`. */
  readonly graph: CompiledGraphLike;
  /** The graph for a run: the same graph, or for a factory what it returns for `config`. */
  resolve(config?: GraphFactoryConfig, runtime?: GraphFactoryRuntime): Promise<CompiledGraphLike>;
}

/** A package the application resolved. */
export interface ResolvedPackage {
  readonly name: string;
  readonly version: string;
  /** Its package.json, absolute. */
  readonly packageJson: string;
}

/**
 * The application's own copies of the LangGraph classes the runtime must construct: a
 * `Command` built from another copy would still pass LangGraph's structural checks, but a
 * checkpointer or store must extend the application's base classes.
 */
export interface LangGraphBindings {
  Command: new (args: {
    resume?: unknown;
    update?: unknown;
    goto?: unknown;
    graph?: string;
  }) => unknown;
  MemorySaver: new () => unknown;
  BaseCheckpointSaver: abstract new (...args: never[]) => unknown;
  /** The application's whole @langchain/langgraph module namespace. */
  langgraphModule: Readonly<Record<string, unknown>>;
  /** The @langchain/langgraph-checkpoint module namespace that the application's langgraph uses. */
  checkpointModule: Readonly<Record<string, unknown>>;
  langgraphPackage: ResolvedPackage;
  checkpointPackage: ResolvedPackage;
}

export interface GraphRegistryOptions {
  /**
   * The tsconfig tsx applies to the application's files: by default the application's own
   * `tsconfig.json` next to the graph configuration, or none. (tsx's own default is the
   * tsconfig of the process's working directory, which is Berth's, not the application's.)
   */
  tsconfig?: string | false;
}

const LANGGRAPH = '@langchain/langgraph';
const CHECKPOINT = '@langchain/langgraph-checkpoint';

function isRecord(value: unknown): value is Record<string, unknown> {
  return (typeof value === 'object' || typeof value === 'function') && value !== null;
}

function hasMethods(value: unknown, names: readonly string[]): boolean {
  return isRecord(value) && names.every((name) => typeof value[name] === 'function');
}

/** Looks like a compiled graph: has `invoke`, `stream` and `getState`. */
export function isCompiledGraphLike(value: unknown): value is CompiledGraphLike {
  return hasMethods(value, ['invoke', 'stream', 'getState']);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') {
    const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
    return typeof name === 'string' && name !== 'Object' ? `an instance of ${name}` : 'an object';
  }
  return typeof value;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Turns what a graph export gave into a compiled graph, as the reference server does: an
 * uncompiled builder (has `compile()`) is compiled; a wrapper exposing the compiled graph as
 * `.graph` (LangChain's `createAgent`) is unwrapped.
 */
function toCompiledGraph(graphId: string, value: unknown, whatIs: string): CompiledGraphLike {
  let graph = value;
  if (!isCompiledGraphLike(graph) && hasMethods(graph, ['compile'])) {
    graph = (graph as { compile(): unknown }).compile();
  }
  const inner = isRecord(graph) ? graph['graph'] : undefined;
  if (isCompiledGraphLike(inner) && isRecord((inner as { builder?: unknown }).builder)) {
    graph = inner;
  }
  if (!isCompiledGraphLike(graph)) {
    throw new GraphLoadError(
      graphId,
      `${whatIs} ${describe(value)}, not a compiled graph (with invoke, stream and getState)`,
    );
  }
  return graph;
}

/** The promise kept for `key`, made once; one that fails is forgotten, so the next call tries again. */
function settledOnce<T>(
  cache: Map<string, Promise<T>>,
  key: string,
  make: () => Promise<T>,
): Promise<T> {
  const kept = cache.get(key);
  if (kept !== undefined) return kept;
  const made = make();
  cache.set(key, made);
  made.catch(() => cache.delete(key));
  return made;
}

function readPackage(packageJson: string, expectedName: string): ResolvedPackage {
  const json = JSON.parse(readFileSync(packageJson, 'utf8')) as {
    name?: unknown;
    version?: unknown;
  };
  if (json.name !== expectedName) {
    throw new Error(`${packageJson} is not the package.json of ${expectedName}`);
  }
  return { name: expectedName, version: String(json.version), packageJson };
}

/**
 * Finds the package.json of `name` as `require` resolves it. Uses `<name>/package.json` and,
 * for a package that does not export it, walks up from its main entry.
 */
function resolvePackageJson(require: NodeJS.Require, name: string): ResolvedPackage {
  try {
    return readPackage(require.resolve(`${name}/package.json`), name);
  } catch {
    // Not exported: find it from the entry point.
  }
  let dir = dirname(require.resolve(name));
  for (;;) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) {
      try {
        return readPackage(candidate, name);
      } catch {
        // A nested package.json (e.g. dist/cjs/package.json): keep going up.
      }
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find the package.json of ${name}`);
    dir = parent;
  }
}

/**
 * The graphs of one application (one graph configuration). Graph modules, TypeScript or
 * JavaScript, are imported as they are through tsx, with no build step, in a module namespace
 * of their own: every graph of the registry and its bindings share module instances (one copy
 * of the application's @langchain/langgraph), and nothing is shared with Berth's own modules or
 * with another registry.
 */
export class GraphRegistry {
  private readonly loaded = new Map<string, Promise<LoadedGraph>>();
  private readonly bindingsByPackage = new Map<string, Promise<LangGraphBindings>>();
  private readonly bindingsByGraph = new Map<string, Promise<LangGraphBindings>>();
  private namespace: NamespacedUnregister | undefined;
  private closed = false;

  private constructor(
    readonly config: GraphConfig,
    private readonly options: GraphRegistryOptions,
  ) {}

  /**
   * A registry importing the application's modules with tsx (`register({ namespace })`, which
   * uses `module.register()`): it works in plain Node, not inside Jest's VM modules (Jest 30
   * refuses `module.register()`; loading then fails with a GraphLoadError saying so).
   */
  static fromConfig(config: GraphConfig, options: GraphRegistryOptions = {}): GraphRegistry {
    return new GraphRegistry(config, options);
  }

  /** Graph ids, in the configuration's order. */
  graphIds(): string[] {
    return [...this.config.graphs.keys()];
  }

  has(graphId: string): boolean {
    return this.config.graphs.has(graphId);
  }

  spec(graphId: string): GraphSpec {
    const spec = this.config.graphs.get(graphId);
    if (spec === undefined) {
      throw new GraphLoadError(
        graphId,
        `not in ${this.config.configFile} (graphs: ${this.graphIds().join(', ')})`,
      );
    }
    return spec;
  }

  /** Imports the graph's module once and resolves its export (a factory is called once). */
  load(graphId: string): Promise<LoadedGraph> {
    // A failed load is retried on the next call (e.g. after the file is fixed).
    return settledOnce(this.loaded, graphId, () => this.loadUncached(graphId));
  }

  /** The graph for a run: `load(graphId)`, then for a factory a call with `config`. */
  async graph(
    graphId: string,
    config?: GraphFactoryConfig,
    runtime?: GraphFactoryRuntime,
  ): Promise<CompiledGraphLike> {
    return (await this.load(graphId)).resolve(config, runtime);
  }

  /**
   * The application's own @langchain/langgraph (and the @langchain/langgraph-checkpoint that
   * it uses), resolved from the graph file's directory (nested or hoisted node_modules alike)
   * and imported in the same module namespace as the graph: `Command` is the very class the
   * graph module imports.
   */
  bindings(graphId: string): Promise<LangGraphBindings> {
    // Resolved once per graph: every run asks, and resolving walks the file system.
    return settledOnce(this.bindingsByGraph, graphId, () => this.resolveBindings(graphId));
  }

  private async resolveBindings(graphId: string): Promise<LangGraphBindings> {
    const spec = this.spec(graphId);
    let langgraphPackage: ResolvedPackage;
    try {
      langgraphPackage = resolvePackageJson(createRequire(spec.file), LANGGRAPH);
    } catch (error) {
      throw new GraphLoadError(
        graphId,
        `cannot resolve ${LANGGRAPH} from ${dirname(spec.file)}: ${errorText(error)}`,
        { cause: error },
      );
    }
    return settledOnce(this.bindingsByPackage, langgraphPackage.packageJson, () =>
      this.loadBindings(graphId, spec, langgraphPackage),
    );
  }

  /**
   * Stops importing through this registry's tsx namespace. Modules already imported stay in
   * Node's module cache (ES modules cannot be unloaded); a new registry imports afresh.
   */
  async close(): Promise<void> {
    this.closed = true;
    const namespace = this.namespace;
    this.namespace = undefined;
    this.loaded.clear();
    this.bindingsByGraph.clear();
    this.bindingsByPackage.clear();
    if (namespace !== undefined) await namespace.unregister();
  }

  private import(specifier: string, parentUrl: string): Promise<Record<string, unknown>> {
    if (this.closed) return Promise.reject(new Error('the graph registry is closed'));
    if (this.namespace === undefined) {
      const ownTsconfig = join(this.config.dir, 'tsconfig.json');
      const tsconfig = this.options.tsconfig ?? (existsSync(ownTsconfig) ? ownTsconfig : false);
      // One namespace per registry: modules imported through it (node_modules included) are
      // cached per namespace, so the graphs share one copy of each package.
      this.namespace = register({ namespace: `berth-${randomUUID()}`, tsconfig });
    }
    return this.namespace.import(specifier, parentUrl) as Promise<Record<string, unknown>>;
  }

  /**
   * A module as the graph's own file would import it (`specifier` resolved from there), in the
   * registry's namespace: the very instance the graph's modules share.
   */
  async importFromGraph(graphId: string, specifier: string): Promise<Record<string, unknown>> {
    return this.import(specifier, pathToFileURL(this.spec(graphId).file).href);
  }

  /** An export of a package, resolved from the application's directory as its code would. */
  async importPackageExport(specifier: string, exportName: string): Promise<unknown> {
    const module = await this.import(specifier, pathToFileURL(this.config.configFile).href);
    if (!(exportName in module)) throw new Error(`${specifier} has no export "${exportName}"`);
    return module[exportName];
  }

  /** One export of one of the application's modules, imported as its graphs are (tsx). */
  async importExport(file: string, exportName: string): Promise<unknown> {
    const url = pathToFileURL(file).href;
    const module = await this.import(url, url);
    if (!(exportName in module)) {
      const exports = Object.keys(module).sort().join(', ') || 'none';
      throw new Error(`${file} has no export "${exportName}" (exports: ${exports})`);
    }
    return module[exportName];
  }

  private async loadUncached(graphId: string): Promise<LoadedGraph> {
    const spec = this.spec(graphId);
    const url = pathToFileURL(spec.file).href;
    let module: Record<string, unknown>;
    try {
      module = await this.import(url, url);
    } catch (error) {
      throw new GraphLoadError(graphId, `cannot import ${spec.file}: ${errorText(error)}`, {
        cause: error,
      });
    }
    if (!(spec.exportName in module)) {
      const exports = Object.keys(module).sort().join(', ') || 'none';
      throw new GraphLoadError(
        graphId,
        `${spec.file} has no export "${spec.exportName}" (exports: ${exports})`,
      );
    }
    // A module may export a promise of a graph.
    let exported: unknown;
    try {
      exported = await module[spec.exportName];
    } catch (error) {
      throw new GraphLoadError(
        graphId,
        `export "${spec.exportName}" rejected: ${errorText(error)}`,
        {
          cause: error,
        },
      );
    }
    if (exported === undefined || exported === null) {
      throw new GraphLoadError(
        graphId,
        `export "${spec.exportName}" of ${spec.file} is ${String(exported)}`,
      );
    }

    if (typeof exported === 'function' && !isCompiledGraphLike(exported)) {
      const factory = exported as (
        config: GraphFactoryConfig,
        runtime: GraphFactoryRuntime,
      ) => unknown;
      const resolve = async (
        config: GraphFactoryConfig = { configurable: {} },
        runtime: GraphFactoryRuntime = { accessContext: 'assistants.read', executionRuntime: null },
      ): Promise<CompiledGraphLike> => {
        let made: unknown;
        try {
          made = await factory(config, runtime);
        } catch (error) {
          throw new GraphLoadError(
            graphId,
            `graph function "${spec.exportName}" threw: ${errorText(error)}`,
            { cause: error },
          );
        }
        return toCompiledGraph(graphId, made, `function "${spec.exportName}" returned`);
      };
      return { graphId, spec, kind: 'factory', graph: await resolve(), resolve };
    }

    const graph = toCompiledGraph(graphId, exported, `export "${spec.exportName}" is`);
    return { graphId, spec, kind: 'graph', graph, resolve: () => Promise.resolve(graph) };
  }

  private async loadBindings(
    graphId: string,
    spec: GraphSpec,
    langgraphPackage: ResolvedPackage,
  ): Promise<LangGraphBindings> {
    let checkpointPackage: ResolvedPackage;
    let langgraphModule: Record<string, unknown>;
    let checkpointModule: Record<string, unknown>;
    try {
      // @langchain/langgraph-checkpoint as @langchain/langgraph itself resolves it (it need
      // not be a dependency of the application).
      checkpointPackage = resolvePackageJson(
        createRequire(langgraphPackage.packageJson),
        CHECKPOINT,
      );
      // Import the bare specifiers from the importing file, as the application's own
      // `import` does: require.resolve() would give the CommonJS entry, another instance.
      langgraphModule = await this.import(LANGGRAPH, pathToFileURL(spec.file).href);
      checkpointModule = await this.import(
        CHECKPOINT,
        pathToFileURL(langgraphPackage.packageJson).href,
      );
    } catch (error) {
      throw new GraphLoadError(
        graphId,
        `cannot load ${LANGGRAPH} bindings from ${dirname(spec.file)}: ${errorText(error)}`,
        { cause: error },
      );
    }
    const { Command, MemorySaver } = langgraphModule;
    const { BaseCheckpointSaver } = checkpointModule;
    for (const [name, value] of Object.entries({ Command, MemorySaver, BaseCheckpointSaver })) {
      if (typeof value !== 'function') {
        throw new GraphLoadError(
          graphId,
          `${LANGGRAPH} ${langgraphPackage.version} (${langgraphPackage.packageJson}) has no ${name} class`,
        );
      }
    }
    return {
      Command: Command as LangGraphBindings['Command'],
      MemorySaver: MemorySaver as LangGraphBindings['MemorySaver'],
      BaseCheckpointSaver: BaseCheckpointSaver as LangGraphBindings['BaseCheckpointSaver'],
      langgraphModule,
      checkpointModule,
      langgraphPackage,
      checkpointPackage,
    };
  }
}
