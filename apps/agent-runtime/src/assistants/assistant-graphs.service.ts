import { Inject, Injectable } from '@nestjs/common';
import { Application } from '../application/application.js';
import type { CompiledGraphLike, GraphFactoryConfig } from '../graphs/graph-loader.js';
import type { GraphSchemas } from '../graphs/graph-schemas.js';
import { AssistantsService } from './assistants.service.js';

/** What LangGraph's compiled graphs offer for drawing and for their subgraphs. */
interface InspectableGraph extends CompiledGraphLike {
  getGraphAsync?(config: Record<string, unknown>): Promise<{ toJSON(): unknown }>;
  getSubgraphsAsync?(namespace?: string, recurse?: boolean): AsyncIterable<[string, unknown]>;
}

/**
 * Each subgraph's schemas by its namespace (`a`, `a|b`), as `{state, input, output, config}`:
 * the shape the JS server answers (the SDK passes it through as it comes).
 */
export type Subgraphs = Record<string, GraphSchemas>;

/** A graph's nodes and edges, as LangGraph's `Graph.toJSON()` gives them. */
export type GraphDrawing = { readonly nodes: unknown[]; readonly edges: unknown[] };

function schemaResource(graphId: string, schemas: GraphSchemas) {
  return {
    graph_id: graphId,
    input_schema: schemas.input,
    output_schema: schemas.output,
    state_schema: schemas.state,
    config_schema: schemas.config,
    // A JS graph's context and config schemas are one: the reference server answers both so.
    context_schema: schemas.config,
  };
}

/** An assistant's graph as its structure: the drawing, the schemas and the subgraphs. */
@Injectable()
export class AssistantGraphs {
  constructor(
    @Inject(AssistantsService) private readonly assistants: AssistantsService,
    @Inject(Application) private readonly application: Application,
  ) {}

  /**
   * Nodes and edges; `xray` (as the query gives it) draws subgraphs inside ("true") or down to a
   * depth (a number).
   */
  async drawing(assistantId: string, xrayParameter: string | undefined): Promise<GraphDrawing> {
    const xray =
      xrayParameter === undefined
        ? undefined
        : /^\d+$/.test(xrayParameter)
          ? Number(xrayParameter)
          : xrayParameter === 'true';
    const { graph, config } = await this.graphOf(assistantId);
    if (!graph.getGraphAsync) return { nodes: [], edges: [] };
    const drawable = await graph.getGraphAsync({
      ...config,
      ...(xray === undefined ? {} : { xray }),
    });
    return drawable.toJSON() as GraphDrawing;
  }

  async schemas(assistantId: string): Promise<GraphSchema> {
    const { graph, graphId } = await this.graphOf(assistantId);
    return schemaResource(graphId, await this.application.schemasOf(graphId, graph));
  }

  /** Each subgraph's schemas by its namespace, under `namespace` when given. */
  async subgraphs(
    assistantId: string,
    namespace: string | undefined,
    recurse: boolean,
  ): Promise<Subgraphs> {
    const { graph, graphId } = await this.graphOf(assistantId);
    const found: Subgraphs = {};
    if (!graph.getSubgraphsAsync) return found;
    for await (const [name, subgraph] of graph.getSubgraphsAsync(namespace, recurse)) {
      found[name] = await this.application.schemasOf(graphId, subgraph as CompiledGraphLike, name);
    }
    return found;
  }

  private async graphOf(
    assistantId: string,
  ): Promise<{ graph: InspectableGraph; graphId: string; config: GraphFactoryConfig }> {
    const assistant = await this.assistants.resolve(assistantId);
    const graphId = assistant.graph_id;
    const stored = assistant.config as Record<string, unknown>;
    const config: GraphFactoryConfig = {
      ...stored,
      configurable: {
        ...((stored.configurable ?? {}) as Record<string, unknown>),
        ...(assistant.context as Record<string, unknown>),
      },
    };
    const graph = (await this.application.graph(graphId, config)) as InspectableGraph;
    return { graph, graphId, config };
  }
}

/** The schemas of one graph, as the SDK's `GraphSchema` names them. */
export type GraphSchema = ReturnType<typeof schemaResource>;
