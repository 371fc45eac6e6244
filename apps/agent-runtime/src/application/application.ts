import { isAbsolute } from 'node:path';
import type { EventStore } from '#libs/event-store';
import {
  checkpointCacheBytesOf,
  createEventCheckpointSaver,
  type CheckpointHold,
  type CheckpointLibrary,
  type EventCheckpointSaver,
} from '../checkpoints/index.js';
import { CustomAuth } from '../auth/custom-auth.js';
import { requireServedGraph } from '../common/graph-availability.js';
import { GraphCatalog, type DefaultAssistantSettings } from '../common/runtime-tokens.js';
import { defaultAssistantSettings } from '../graphs/default-assistant-settings.js';
import {
  GraphConfigError,
  readGraphConfig,
  readGraphEnv,
  type GraphConfig,
} from '../graphs/graph-config.js';
import { nodeVersionProblem } from '../graphs/node-version.js';
import type { GraphSchemas } from '../graphs/graph-schemas.js';
import { GraphSchemaCatalog } from '../graphs/graph-schema-catalog.js';
import { sourceSchemaTimeoutOf } from '../graphs/source-schemas/source-schemas-worker.js';
import {
  logLevelOf,
  processLogger,
  registerServerLogger,
  type ServerLogger,
} from '../graphs/server-logger.js';
import {
  GraphRegistry,
  type CompiledGraphLike,
  type GraphFactoryConfig,
  type LangGraphBindings,
} from '../graphs/graph-loader.js';
import type { GraphCommand } from '../execution/graph-stream.js';
import { commandFactory } from './graph-commands.js';
import { NoGraphLoadedError } from './no-graph-loaded-error.js';
import { BoundRunGraph } from './run-graph.js';

/** `BaseStore` of the application's copy of LangGraph: only `batch` is abstract. */
export type BaseStoreConstructor = abstract new () => object;

/**
 * The application this runtime serves: its graphs, loaded from its own directory with its own
 * copies of LangGraph, each given the event-sourced checkpointer built on the application's
 * checkpoint library.
 */
export class Application extends GraphCatalog {
  private readonly savers = new Map<LangGraphBindings['checkpointModule'], EventCheckpointSaver>();
  private readonly stores = new Map<LangGraphBindings['checkpointModule'], unknown>();
  private makeStore: ((BaseStore: BaseStoreConstructor) => object) | undefined;
  private served: string[] = [];
  private failed = new Map<string, string>();
  /** Why the application's last change is not served, while the code before it is. */
  reloadError: string | undefined;
  private schemas: GraphSchemaCatalog;
  /** The version of the application's @langchain/langgraph (of its first graph). */
  langgraphVersion = 'unknown';

  private constructor(
    private currentConfig: GraphConfig,
    private registry: GraphRegistry,
    private readonly store: EventStore,
    /** Each checkpointer's cache budget (`BERTH_CHECKPOINT_CACHE_MB`). */
    private readonly checkpointCacheBytes: number,
    private readonly logger: ServerLogger,
    /** How long reading the graphs' source for schemas may take (`LANGGRAPH_SCHEMA_RESOLVE_TIMEOUT_MS`). */
    private readonly schemaTimeoutMs: number,
    private readonly defaults: (graphId: string) => DefaultAssistantSettings,
  ) {
    super();
    this.schemas = this.schemaCatalog(registry);
  }

  /**
   * Reads the graph configuration, applies its environment and loads every graph once. A graph
   * that fails to load is set aside with its reason and the others are served; when every graph
   * fails, opening fails with all the reasons.
   */
  static async open(
    configPath: string,
    store: EventStore,
    env: NodeJS.ProcessEnv,
  ): Promise<Application> {
    const checkpointCacheBytes = checkpointCacheBytesOf(env);
    const config = await readGraphConfig(configPath);
    const tooOld =
      config.nodeVersion === undefined
        ? undefined
        : nodeVersionProblem(config.nodeVersion, process.versions.node);
    if (tooOld !== undefined) throw new GraphConfigError(config.configFile, tooOld);
    for (const [name, value] of Object.entries(await readGraphEnv(config))) env[name] ??= value;
    const defaults = defaultAssistantSettings(env.LANGGRAPH_CONFIG);
    const logger = processLogger(logLevelOf(env.LOG_LEVEL));
    registerServerLogger(logger);
    const registry = GraphRegistry.fromConfig(config);
    const application = new Application(
      config,
      registry,
      store,
      checkpointCacheBytes,
      logger,
      sourceSchemaTimeoutOf(env.LANGGRAPH_SCHEMA_RESOLVE_TIMEOUT_MS),
      defaults,
    );
    ({ served: application.served, failed: application.failed } = await loadEveryGraph(registry));
    if (application.served.length === 0) {
      await application.close();
      throw new NoGraphLoadedError(config.configFile, application.failed);
    }
    const [first] = application.served;
    if (first !== undefined) {
      application.langgraphVersion = (
        await application.registry.bindings(first)
      ).langgraphPackage.version;
    }
    return application;
  }

  get config(): GraphConfig {
    return this.currentConfig;
  }

  graphIds(): readonly string[] {
    return this.served;
  }

  /**
   * Loads the application's code again, in a module namespace of its own, and serves it when
   * every graph that loaded before still loads; otherwise the code before keeps serving and
   * `reloadError` says why. Runs in progress keep the graphs they started with.
   */
  async reload(): Promise<{ readonly reloaded: boolean; readonly reason?: string }> {
    let config: GraphConfig;
    try {
      config = await readGraphConfig(this.currentConfig.configFile);
    } catch (error) {
      return this.keep(error instanceof Error ? error.message : String(error));
    }
    const registry = GraphRegistry.fromConfig(config);
    const { served, failed } = await loadEveryGraph(registry);
    const broken = [...failed].filter(([graphId]) => !this.failed.has(graphId));
    if (served.length === 0 || broken.length > 0) {
      await registry.close();
      const reasons = broken.length ? broken.map(([, reason]) => reason) : [...failed.values()];
      return this.keep(reasons.join('\n'));
    }
    const previous = this.registry;
    this.currentConfig = config;
    this.registry = registry;
    this.served = served;
    this.failed = failed;
    this.savers.clear();
    this.stores.clear();
    this.schemas = this.schemaCatalog(registry);
    this.reloadError = undefined;
    // What the old modules already imported stays usable by the runs still using them.
    await previous.close();
    return { reloaded: true };
  }

  private keep(reason: string): { readonly reloaded: false; readonly reason: string } {
    this.reloadError = reason;
    return { reloaded: false, reason };
  }

  failedGraphs(): ReadonlyMap<string, string> {
    return this.failed;
  }

  defaultAssistant(graphId: string): DefaultAssistantSettings {
    return this.defaults(graphId);
  }

  /**
   * The graph for one request (a factory export is called with its config), with its
   * checkpointer and, once attached, its store.
   */
  async graph(graphId: string, config?: GraphFactoryConfig): Promise<CompiledGraphLike> {
    return (await (await this.bindRun(graphId, config)).built()).graph;
  }

  /**
   * The graph of one run, with what the run does with its checkpoints: bound once for the run.
   * The graph itself is built when the run first asks for it.
   */
  async bindRun(graphId: string, config?: GraphFactoryConfig): Promise<BoundRunGraph> {
    requireServedGraph(this, graphId);
    const bindings = await this.registry.bindings(graphId);
    const saver = this.saverOf(bindings);
    const store = this.storeOf(bindings);
    return new BoundRunGraph({ ...config }, saver, bindings, async () => {
      const graph = await this.registry.graph(graphId, config);
      graph.checkpointer = saver;
      if (store !== undefined) graph.store = store;
      return graph;
    });
  }

  /** Gives every graph a store, made on the `BaseStore` class of the graph's own LangGraph. */
  attachStore(makeStore: (BaseStore: BaseStoreConstructor) => object): void {
    this.makeStore = makeStore;
    this.stores.clear();
  }

  /** An export of the application's code: of `<file>` when absolute, else of a package it depends on. */
  async importFromApplication(specifier: string, exportName: string): Promise<unknown> {
    return isAbsolute(specifier)
      ? this.registry.importExport(specifier, exportName)
      : this.registry.importPackageExport(specifier, exportName);
  }

  /**
   * The application's own HTTP routes (`http.app`): a Hono app, or anything with `fetch(request)`.
   * Undefined without `http.app`; a string saying why when it cannot be loaded.
   */
  async customRoutes(): Promise<CustomRoutes | string | undefined> {
    const spec = this.config.http?.app;
    if (!spec) return undefined;
    try {
      const exported = await this.registry.importExport(spec.file, spec.exportName);
      const app = (await exported) as Partial<CustomRoutes> | null;
      if (typeof app?.fetch !== 'function') {
        return `http.app: export "${spec.exportName}" of ${spec.file} is not an app with fetch() (a Hono app)`;
      }
      return app as CustomRoutes;
    } catch (error) {
      return `http.app: ${error instanceof Error ? error.message : String(error)}`;
    }
  }

  /**
   * The application's own authentication (`auth.path`), undefined without one. It fails when
   * `auth.path` cannot be loaded: the runtime must not start open.
   */
  async customAuth(): Promise<CustomAuth | undefined> {
    const spec = this.config.auth;
    if (!spec) return undefined;
    const exported = await await this.registry
      .importExport(spec.file, spec.exportName)
      .catch((error: unknown) => {
        throw new GraphConfigError(
          this.config.configFile,
          `auth.path: ${error instanceof Error ? error.message : String(error)}`,
        );
      });
    const auth = CustomAuth.from(exported);
    if (!auth) {
      throw new GraphConfigError(
        this.config.configFile,
        `auth.path: export "${spec.exportName}" of ${spec.file} is not an instance of Auth from @langchain/langgraph-sdk/auth`,
      );
    }
    return auth;
  }

  /**
   * The JSON schemas a graph of `graphId` declares, or with `namespace` (`a|b`) its subgraph
   * there (see graph-schema-catalog.ts).
   */
  schemasOf(graphId: string, graph: CompiledGraphLike, namespace?: string): Promise<GraphSchemas> {
    return this.schemas.schemasOf(graphId, graph, namespace);
  }

  private schemaCatalog(registry: GraphRegistry): GraphSchemaCatalog {
    return new GraphSchemaCatalog(registry, () => this.served, {
      timeoutMs: this.schemaTimeoutMs,
      warn: (message) => this.logger.warn(message),
    });
  }

  /** A LangGraph Command built with the application's own class; `goto` items may be Sends. */
  async createCommand(graphId: string): Promise<(command: GraphCommand) => unknown> {
    const bindings = await this.registry.bindings(graphId);
    return commandFactory(bindings.Command, bindings.langgraphModule.Send);
  }

  /**
   * Runs `work` on the thread's checkpoints while the caller keeps every other writer off them
   * (it holds the thread's lock): only the first read of them queries the log, and what the graph
   * writes is appended in one commit, with the caller's own append if it asks (`appendWith`).
   */
  async holdingCheckpoints<T>(
    graphId: string,
    threadId: string,
    work: (hold: CheckpointHold) => Promise<T>,
  ): Promise<T> {
    const saver = this.saverOf(await this.registry.bindings(graphId));
    return saver.storage.exclusively(threadId, work);
  }

  async close(): Promise<void> {
    await this.registry.close();
  }

  private storeOf(bindings: LangGraphBindings): unknown {
    if (!this.makeStore) return undefined;
    let store = this.stores.get(bindings.checkpointModule);
    if (!store) {
      const BaseStore = bindings.checkpointModule.BaseStore as BaseStoreConstructor | undefined;
      if (!BaseStore) return undefined;
      store = this.makeStore(BaseStore);
      this.stores.set(bindings.checkpointModule, store);
    }
    return store;
  }

  private saverOf(bindings: LangGraphBindings): EventCheckpointSaver {
    let saver = this.savers.get(bindings.checkpointModule);
    if (!saver) {
      saver = createEventCheckpointSaver(
        bindings.checkpointModule as unknown as CheckpointLibrary,
        this.store,
        { maxCachedBytes: this.checkpointCacheBytes },
      );
      this.savers.set(bindings.checkpointModule, saver);
    }
    return saver;
  }
}

/** Loads each graph of a registry: those that load are served, the others kept with why. */
async function loadEveryGraph(
  registry: GraphRegistry,
): Promise<{ served: string[]; failed: Map<string, string> }> {
  const served: string[] = [];
  const failed = new Map<string, string>();
  for (const graphId of registry.graphIds()) {
    try {
      await registry.load(graphId);
      served.push(graphId);
    } catch (error) {
      failed.set(graphId, error instanceof Error ? error.message : String(error));
    }
  }
  return { served, failed };
}

/** The application's own routes, as a fetch handler (what a Hono app is). */
export interface CustomRoutes {
  fetch(request: Request): Response | Promise<Response>;
}
