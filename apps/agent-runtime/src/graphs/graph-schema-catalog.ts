import type { GraphRegistry } from './graph-loader.js';
import {
  combinedSchemas,
  runtimeSchemas,
  type GraphSchemas,
  type SchemaReaders,
} from './graph-schemas.js';
import { ROOT_NAMESPACE, type SourceSchemas } from './source-schemas/extract-source-schemas.js';
import { extractSourceSchemasInWorker } from './source-schemas/source-schemas-worker.js';

/** How the catalog reads the graphs' source: in a worker, by default. */
export type SourceReader = (
  graphs: { graphId: string; file: string; exportName: string }[],
  applicationDir: string,
) => Promise<SourceSchemas>;

/**
 * The schemas of one loaded version of an application's graphs. The source is read once, the
 * first time a graph's runtime objects leave a schema unknown, for every graph at once, off the
 * event loop; until then nothing is read, and a source that cannot be read leaves the runtime's
 * schemas (or the state keys) as they are.
 */
export class GraphSchemaCatalog {
  private readonly readers = new Map<string, Promise<SchemaReaders>>();
  private source: Promise<SourceSchemas> | undefined;

  constructor(
    private readonly registry: GraphRegistry,
    private readonly graphIds: () => readonly string[],
    private readonly options: {
      readonly timeoutMs: number;
      readonly warn: (message: string) => void;
      readonly readSource?: SourceReader;
    },
  ) {}

  /**
   * The schemas of `graph`, a graph of `graphId` or, with `namespace` (`a|b`), the subgraph
   * there.
   */
  async schemasOf(graphId: string, graph: unknown, namespace?: string): Promise<GraphSchemas> {
    const runtime = runtimeSchemas(graph, await this.readersFor(graphId));
    const complete = Object.values(runtime).every((schema) => schema !== null);
    const source = complete ? undefined : (await this.sourceSchemas())[graphId];
    return combinedSchemas(graph, runtime, source?.[namespace ?? ROOT_NAMESPACE]);
  }

  private sourceSchemas(): Promise<SourceSchemas> {
    this.source ??= this.readSource().catch((error: unknown) => {
      this.options.warn(
        `the graphs' schemas could not be read from their source (their state keys are given instead): ${
          error instanceof Error ? error.message : String(error)
        }`,
      );
      return {};
    });
    return this.source;
  }

  private readSource(): Promise<SourceSchemas> {
    const graphs = this.graphIds().map((graphId) => {
      const { file, exportName } = this.registry.spec(graphId);
      return { graphId, file, exportName };
    });
    const read =
      this.options.readSource ??
      ((specs, dir) => extractSourceSchemasInWorker(specs, dir, this.options.timeoutMs));
    return read(graphs, this.registry.config.dir);
  }

  /** The readers of the graph's own LangGraph, once per copy of it. */
  private async readersFor(graphId: string): Promise<SchemaReaders> {
    const { packageJson } = (await this.registry.bindings(graphId)).langgraphPackage;
    let readers = this.readers.get(packageJson);
    if (!readers) {
      readers = this.loadReaders(graphId);
      this.readers.set(packageJson, readers);
    }
    return readers;
  }

  private async loadReaders(graphId: string): Promise<SchemaReaders> {
    const load = (specifier: string): Promise<Record<string, unknown>> =>
      this.registry.importFromGraph(graphId, specifier).catch(() => ({}));
    const [zodSchema, jsonSchema, types] = await Promise.all([
      load('@langchain/langgraph/zod/schema'),
      load('@langchain/core/utils/json_schema'),
      load('@langchain/core/utils/types'),
    ]);
    const fn = (value: unknown): ((argument: unknown) => never) | undefined =>
      typeof value === 'function' ? (value as (argument: unknown) => never) : undefined;
    return {
      getUpdateTypeSchema: fn(zodSchema.getUpdateTypeSchema),
      getInputTypeSchema: fn(zodSchema.getInputTypeSchema),
      getOutputTypeSchema: fn(zodSchema.getOutputTypeSchema),
      getConfigTypeSchema: fn(zodSchema.getConfigTypeSchema),
      toJsonSchema: fn(jsonSchema.toJsonSchema),
      isZodSchema: fn(types.isInteropZodSchema),
    };
  }
}
