import { OwnedResources } from '../common/owned-resources.js';
import { ThreadsService } from '../threads/threads.service.js';
import { Inject, Injectable } from '@nestjs/common';
import { refuseFailedGraph, requireServedGraph } from '../common/graph-availability.js';
import { DataSource, type SelectQueryBuilder } from 'typeorm';
import { AggregateCommands, EventStore, foldStream, type JsonObject } from '#libs/event-store';
import { notFound } from '#libs/domain';
import { GraphCatalog } from '../common/runtime-tokens.js';
import { selectFields } from '../common/select-fields.js';
import { defaultAssistantId, isUuid } from '../common/uuid5.js';
import { ReadModelFreshness } from '#libs/persistence';
import {
  activeVersion,
  assistantDecider,
  type AssistantCommand,
  type AssistantFields,
  type AssistantState,
} from './assistant.decider.js';
import { AssistantEntity, type AssistantRow } from './assistant.entity.js';
import { assistantStream, type AssistantEvent } from './assistant.events.js';
import {
  assistantResource,
  assistantVersionResource,
  type Assistant,
  type AssistantVersion,
} from './assistant.resource.js';
import { rowOf } from './assistants.projection.js';
import type { ListVersionsDto, SearchAssistantsDto } from './assistants.dto.js';

export interface ResolvedAssistant {
  readonly assistant_id: string;
  readonly graph_id: string;
  readonly version: number;
  readonly config: JsonObject;
  readonly context: JsonObject;
  readonly metadata: JsonObject;
}

@Injectable()
export class AssistantsService {
  private readonly assistantCommands: AggregateCommands<
    AssistantState,
    AssistantCommand,
    AssistantEvent
  >;

  constructor(
    @Inject(EventStore) private readonly store: EventStore,
    @Inject(DataSource) private readonly dataSource: DataSource,
    @Inject(ReadModelFreshness) private readonly freshness: ReadModelFreshness,
    @Inject(GraphCatalog) private readonly graphs: GraphCatalog,
    @Inject(OwnedResources) private readonly owned: OwnedResources,
    @Inject(ThreadsService) private readonly threads: ThreadsService,
  ) {
    this.assistantCommands = new AggregateCommands({
      store,
      decider: assistantDecider,
      streamOf: assistantStream,
    });
  }

  /** Deletes the assistant and what it owns (its crons), and if asked the threads made through it. */
  async remove(assistantId: string, now: string, withThreads: boolean): Promise<void> {
    await this.delete(assistantId, now);
    await this.owned.deleteOf({ assistantId }, now);
    if (withThreads) await this.threads.deleteCreatedThrough(assistantId, now);
  }

  async create(
    assistantId: string,
    graphId: string,
    fields: AssistantFields,
    ifExists: 'raise' | 'do_nothing',
    now: string,
  ): Promise<Assistant> {
    requireServedGraph(this.graphs, graphId);
    const state = await this.execute(assistantId, {
      kind: 'create',
      assistant_id: assistantId,
      graph_id: graphId,
      fields,
      if_exists: ifExists,
      now,
    });
    return this.resource(state);
  }

  /**
   * Each graph's default assistant, at the id that the interface's platform gives it, created
   * with the config and context of `LANGGRAPH_CONFIG`. One that exists is left as it is, as the
   * reference server does: a changed `LANGGRAPH_CONFIG` reaches only default assistants made
   * afterwards.
   */
  async ensureDefaults(now: string): Promise<void> {
    for (const graphId of this.graphs.graphIds()) {
      const { config, context } = this.graphs.defaultAssistant(graphId);
      await this.execute(defaultAssistantId(graphId), {
        kind: 'create',
        assistant_id: defaultAssistantId(graphId),
        graph_id: graphId,
        fields: { name: graphId, config, context, metadata: { created_by: 'system' } },
        if_exists: 'do_nothing',
        now,
      });
    }
  }

  async update(assistantId: string, fields: AssistantFields, now: string): Promise<Assistant> {
    if (fields.graph_id !== undefined) requireServedGraph(this.graphs, fields.graph_id);
    return this.resource(await this.execute(assistantId, { kind: 'update', fields, now }));
  }

  async setLatest(assistantId: string, version: number, now: string): Promise<Assistant> {
    return this.resource(await this.execute(assistantId, { kind: 'set_latest', version, now }));
  }

  async delete(assistantId: string, now: string): Promise<void> {
    await this.execute(assistantId, { kind: 'delete', now });
  }

  async get(assistantId: string): Promise<Assistant> {
    return assistantResource(await this.row(assistantId));
  }

  async versions(assistantId: string, query: ListVersionsDto): Promise<AssistantVersion[]> {
    const row = await this.row(assistantId);
    const offset = query.offset ?? 0;
    return [...row.versions]
      .filter((version) => !query.metadata || contains(version.metadata, query.metadata))
      .sort((a, b) => b.version - a.version)
      .slice(offset, offset + (query.limit ?? 10))
      .map((version) => assistantVersionResource(assistantId, version));
  }

  async search(query: SearchAssistantsDto): Promise<Partial<Assistant>[]> {
    const rows = await (
      await this.matching(query)
    )
      .orderBy(`a.${query.sort_by ?? 'created_at'}`, query.sort_order === 'asc' ? 'ASC' : 'DESC')
      .addOrderBy('a.assistant_id', 'ASC')
      .offset(query.offset ?? 0)
      .limit(query.limit ?? 10)
      .getMany();
    return rows.map((row) => selectFields(assistantResource(row), query.select));
  }

  /** How many assistants the search's filters match, paging aside. */
  async count(query: SearchAssistantsDto): Promise<number> {
    return (await this.matching(query)).getCount();
  }

  private async matching(query: SearchAssistantsDto): Promise<SelectQueryBuilder<AssistantRow>> {
    await this.freshness.catchUp('assistants');
    const builder = this.dataSource.getRepository(AssistantEntity).createQueryBuilder('a');
    // A null filter is no filter, as the SDK's own `?? undefined` makes it.
    if (query.graph_id != null)
      builder.andWhere('a.graph_id = :graphId', { graphId: query.graph_id });
    if (query.name != null)
      builder.andWhere('a.name ilike :name', { name: `%${escapeLike(query.name)}%` });
    if (query.metadata != null) {
      builder.andWhere('a.metadata @> :metadata::jsonb', {
        metadata: JSON.stringify(query.metadata),
      });
    }
    return builder;
  }

  /**
   * The assistant a run names: an assistant id, or a graph id for that graph's default assistant.
   * Read from its stream, so an assistant created a moment ago is found on any replica.
   */
  async resolve(assistantIdOrGraph: string): Promise<ResolvedAssistant> {
    refuseFailedGraph(this.graphs, assistantIdOrGraph);
    const assistantId = isUuid(assistantIdOrGraph)
      ? assistantIdOrGraph
      : this.graphs.graphIds().includes(assistantIdOrGraph)
        ? defaultAssistantId(assistantIdOrGraph)
        : undefined;
    const state = assistantId ? await this.fold(assistantId) : undefined;
    const active = state && activeVersion(state);
    if (!assistantId || !state?.exists || !active) {
      throw notFound(
        `No assistant found for "${assistantIdOrGraph}". Use the id of an assistant or a graph id.`,
      );
    }
    return {
      assistant_id: assistantId,
      graph_id: active.graph_id,
      version: active.version,
      config: active.config,
      context: active.context,
      metadata: active.metadata,
    };
  }

  private async fold(assistantId: string): Promise<AssistantState> {
    return (await foldStream(this.store, assistantStream(assistantId), assistantDecider)).state;
  }

  private async execute(assistantId: string, command: AssistantCommand): Promise<AssistantState> {
    return (await this.assistantCommands.handle(assistantId, command)).state;
  }

  private async row(assistantId: string): Promise<AssistantRow> {
    if (!isUuid(assistantId)) throw notFound('Assistant not found');
    await this.freshness.catchUp('assistants');
    const row = await this.dataSource
      .getRepository(AssistantEntity)
      .findOneBy({ assistant_id: assistantId });
    if (!row) throw notFound('Assistant not found');
    return row;
  }

  private resource(state: AssistantState): Assistant {
    const row = rowOf(state);
    if (!row) throw notFound('Assistant not found');
    return assistantResource(row);
  }
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

function contains(metadata: JsonObject, filter: JsonObject): boolean {
  return Object.entries(filter).every(
    ([key, value]) => JSON.stringify(metadata[key]) === JSON.stringify(value),
  );
}
