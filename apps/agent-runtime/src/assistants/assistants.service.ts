import { AssistantCommands } from './assistant-commands.js';
import { Inject, Injectable } from '@nestjs/common';
import { refuseFailedGraph } from '../common/graph-availability.js';
import { DataSource, type SelectQueryBuilder } from 'typeorm';
import { EventStore, foldStream, type JsonObject } from '#libs/event-store';
import { domainEventOf, notFound } from '#libs/domain';
import { GraphCatalog } from '../common/runtime-tokens.js';
import { selectFields } from '../common/select-fields.js';
import { defaultAssistantId, isUuid } from '../common/uuid5.js';
import { ReadModelFreshness } from '#libs/persistence';
import { activeVersion, assistantDecider, type AssistantState } from './assistant.decider.js';
import { AssistantEntity, type AssistantRow } from './assistant.entity.js';
import { assistantStream, type AssistantEvent } from './assistant.events.js';
import {
  assistantResource,
  assistantVersionResource,
  type Assistant,
  type AssistantVersion,
} from './assistant.resource.js';
import type { ListVersionsDto, SearchAssistantsDto } from './assistants.dto.js';
import { versionProvenance, type VersionProvenance } from './version-changes.js';
import { refuseEncryptedFilter } from '../common/json-keys-column.js';

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
  constructor(
    @Inject(EventStore) private readonly store: EventStore,
    @Inject(DataSource) private readonly dataSource: DataSource,
    @Inject(ReadModelFreshness) private readonly freshness: ReadModelFreshness,
    @Inject(GraphCatalog) private readonly graphs: GraphCatalog,
    @Inject(AssistantCommands) private readonly commands: AssistantCommands,
  ) {}

  /**
   * Each graph's default assistant, at the id that the interface's platform gives it, created
   * with the config and context of `LANGGRAPH_CONFIG`. One that exists is left as it is, as the
   * reference server does: a changed `LANGGRAPH_CONFIG` reaches only default assistants made
   * afterwards.
   */
  async ensureDefaults(now: string): Promise<void> {
    for (const graphId of this.graphs.graphIds()) {
      const { config, context } = this.graphs.defaultAssistant(graphId);
      await this.commands.handle(defaultAssistantId(graphId), {
        kind: 'create',
        assistant_id: defaultAssistantId(graphId),
        graph_id: graphId,
        fields: { name: graphId, config, context, metadata: { created_by: 'system' } },
        if_exists: 'do_nothing',
        now,
      });
    }
  }

  async get(assistantId: string): Promise<Assistant> {
    return assistantResource(await this.row(assistantId));
  }

  /** Newest first, each with what it changed from the version it was made from, who and when. */
  async versions(assistantId: string, query: ListVersionsDto): Promise<AssistantVersion[]> {
    const row = await this.row(assistantId);
    const provenance = await this.provenance(assistantId);
    const offset = query.offset ?? 0;
    return [...row.versions]
      .filter((version) => !query.metadata || contains(version.metadata, query.metadata))
      .sort((a, b) => b.version - a.version)
      .slice(offset, offset + (query.limit ?? 10))
      .map((version) =>
        assistantVersionResource(assistantId, version, provenance.get(version.version)),
      );
  }

  /** Who made each version and from which, as the assistant's stream recorded it. */
  private async provenance(assistantId: string): Promise<Map<number, VersionProvenance>> {
    const events = await this.store.readStream(assistantStream(assistantId));
    return versionProvenance(
      events.map((recorded) => ({
        event: domainEventOf<AssistantEvent>(recorded),
        metadata: recorded.metadata,
      })),
    );
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
      refuseEncryptedFilter(query.metadata);
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

  private async row(assistantId: string): Promise<AssistantRow> {
    if (!isUuid(assistantId)) throw notFound('Assistant not found');
    await this.freshness.catchUp('assistants');
    const row = await this.dataSource
      .getRepository(AssistantEntity)
      .findOneBy({ assistant_id: assistantId });
    if (!row) throw notFound('Assistant not found');
    return row;
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
