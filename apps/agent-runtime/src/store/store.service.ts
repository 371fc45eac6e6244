import { Inject, Injectable, Logger } from '@nestjs/common';
import { payloadTooLarge, unavailable } from '#libs/domain';
import { DataSource } from 'typeorm';
import { EventStore, uuidv7, type JsonObject } from '#libs/event-store';
import { ReadModelFreshness } from '#libs/persistence';
import { storeDecider, type StoreCommand } from './store.decider.js';
import type { StoreEvent, StoreVectors } from './store.events.js';
import { embedItems, textsToEmbed, unitVector, type Embedder } from './store-embeddings.js';
import { requireValidNamespace, storeItemId, storeStream } from './store-namespace.js';
import type { StoreItem, StoreItemFound } from './store-item-record.js';
import { StoreReads, type NamespaceMatch, type StoreSearch } from './store-reads.js';
import { StoreSettings } from './store-settings.js';
import { StoreVectorSearch } from './store-vector-search.js';

export interface StorePut {
  readonly namespace: string[];
  readonly key: string;
  /** Null deletes the item. */
  readonly value: JsonObject | null;
  /** False: not embedded; paths: these instead of `store.index.fields`. */
  readonly index?: false | readonly string[] | null;
  /** Minutes; undefined: `store.ttl.default_ttl`; null: kept until deleted. */
  readonly ttlMinutes?: number | null;
}

/** Which items the reader may see (the application's auth filters); all when absent. */
export type StoreItemFilter = (item: StoreItem) => boolean;

export interface StoreSearchRequest extends Omit<StoreSearch, 'queryVector'> {
  readonly query?: string;
  readonly refreshTtl?: boolean;
  readonly visible?: StoreItemFilter;
}

/** With auth filters, a search looks through at most this many items for its page. */
const FILTERED_SCAN_LIMIT = 10_000;

/** Long-term memory: writes are events of the namespace's stream, reads come from the read model. */
@Injectable()
export class StoreService {
  private readonly logger = new Logger('store');
  private readonly reads: StoreReads;

  constructor(
    @Inject(EventStore) private readonly events: EventStore,
    @Inject(DataSource) dataSource: DataSource,
    @Inject(ReadModelFreshness) private readonly freshness: ReadModelFreshness,
    @Inject(StoreSettings) private readonly settings: StoreSettings,
    @Inject(StoreVectorSearch) vectorSearch: StoreVectorSearch,
  ) {
    this.reads = new StoreReads(dataSource, () => vectorSearch.search);
  }

  /** Puts (and deletes, as puts of null): embedded together, one append per namespace. */
  async write(puts: readonly StorePut[]): Promise<void> {
    if (puts.length === 0) return;
    const latest = new Map<string, StorePut>();
    for (const put of puts) {
      requireValidNamespace(put.namespace, ['body', 'namespace']);
      requireStorableSize(put);
      latest.set(storeItemId(put.namespace, put.key), put);
    }
    const unique = [...latest.values()];
    const vectors = await this.vectorsOf(unique);
    const now = new Date().toISOString();
    const commands = unique.map((put, i): StoreCommand =>
      put.value === null
        ? { kind: 'delete', namespace: put.namespace, key: put.key, now }
        : {
            kind: 'put',
            now,
            namespace: put.namespace,
            key: put.key,
            value: put.value,
            vectors: vectors[i] ?? null,
            ttlMinutes:
              put.ttlMinutes === undefined
                ? (this.settings.ttl.defaultTtlMinutes ?? null)
                : put.ttlMinutes,
          },
    );
    await this.appendAll(commands.map((command) => [command, storeDecider.decide(command, null)]));
  }

  async get(
    namespace: string[],
    key: string,
    options: { refreshTtl?: boolean; visible?: StoreItemFilter } = {},
  ): Promise<StoreItem | null> {
    await this.freshness.catchUp('store_items');
    const item = await this.reads.get(namespace, key, new Date());
    // Another reader's item is answered as if it were not there, and its TTL is left alone.
    if (!item || options.visible?.(shown(item)) === false) return null;
    await this.refresh([item], options.refreshTtl);
    return shown(item);
  }

  async search(request: StoreSearchRequest): Promise<StoreItem[]> {
    const queryVector = request.query ? await this.queryVector(request.query) : undefined;
    await this.freshness.catchUp('store_items');
    const { visible, limit, offset } = request;
    const scanned = await this.reads.search(
      {
        ...request,
        ...(queryVector ? { queryVector } : {}),
        ...(visible ? { limit: FILTERED_SCAN_LIMIT, offset: 0 } : {}),
      },
      new Date(),
    );
    const items = visible
      ? scanned.filter((item) => visible(shown(item))).slice(offset, offset + limit)
      : scanned;
    await this.refresh(items, request.refreshTtl);
    return items.map(shown);
  }

  async namespaces(match: NamespaceMatch): Promise<string[][]> {
    await this.freshness.catchUp('store_items');
    return this.reads.namespaces(match, new Date());
  }

  /** The sweeper's step: removes items whose expiry passed; resolves with how many. */
  async expire(limit: number): Promise<number> {
    await this.freshness.catchUp('store_items');
    const now = new Date();
    const due = await this.reads.expired(now, limit);
    const decided = due.map(({ namespace, key, expiresAt }): [StoreCommand, StoreEvent[]] => {
      const command: StoreCommand = { kind: 'expire', namespace, key, now: now.toISOString() };
      return [command, storeDecider.decide(command, { ttlMinutes: null, expiresAt })];
    });
    return this.appendAll(decided);
  }

  private async refresh(
    items: readonly StoreItemFound[],
    asked: boolean | undefined,
  ): Promise<void> {
    if (!(asked ?? this.settings.ttl.refreshOnRead)) return;
    const now = new Date().toISOString();
    await this.appendAll(
      items.map((item): [StoreCommand, StoreEvent[]] => {
        const command: StoreCommand = {
          kind: 'refresh_ttl',
          namespace: item.namespace,
          key: item.key,
          now,
        };
        return [command, storeDecider.decide(command, item)];
      }),
    );
  }

  /** Appends each namespace's events in one append, namespaces side by side. */
  private async appendAll(decided: readonly [StoreCommand, StoreEvent[]][]): Promise<number> {
    const byStream = new Map<string, StoreEvent[]>();
    for (const [command, events] of decided) {
      if (events.length === 0) continue;
      const stream = storeStream(command.namespace);
      byStream.set(stream, [...(byStream.get(stream) ?? []), ...events]);
    }
    await Promise.all(
      [...byStream].map(([stream, events]) =>
        this.events.append(
          stream,
          events.map((event) => ({ eventId: uuidv7(), type: event.type, data: event.data })),
        ),
      ),
    );
    return [...byStream.values()].reduce((sum, events) => sum + events.length, 0);
  }

  private async vectorsOf(puts: readonly StorePut[]): Promise<(StoreVectors | null)[]> {
    const { index } = this.settings;
    if (!index) return puts.map(() => null);
    const embedded = puts.map((put) =>
      put.value !== null && put.index !== false
        ? textsToEmbed(put.value, put.index ?? index.fields)
        : undefined,
    );
    if (embedded.every((texts) => texts === undefined || texts.size === 0)) {
      return puts.map(() => null);
    }
    const embedder = await this.embedder();
    const vectors = await embedItems(
      embedder,
      index.dims,
      embedded.map((texts) => texts ?? new Map()),
    ).catch((error: unknown) => this.embeddingFailed(error));
    return vectors.map((item, i) =>
      embedded[i] === undefined || Object.keys(item).length === 0 ? null : item,
    );
  }

  private async queryVector(query: string): Promise<number[] | undefined> {
    const { index } = this.settings;
    if (!index) return undefined;
    const embedder = await this.embedder();
    return embedder
      .embedQuery(query)
      .then((vector) => unitVector(vector, index.dims))
      .catch((error: unknown) => this.embeddingFailed(error));
  }

  private async embedder(): Promise<Embedder> {
    const loaded = this.settings.embedder;
    if (!loaded) throw new Error('the store has no index');
    return loaded.catch((error: unknown) => this.embeddingFailed(error));
  }

  /** The reason goes to the log only: a provider's message may quote credentials. */
  private embeddingFailed(error: unknown): never {
    this.logger.error(
      `Embedding for the store failed: ${error instanceof Error ? error.message : String(error)}`,
    );
    throw unavailable(
      'Embedding for semantic search failed (store.index.embed); the runtime log says why',
    );
  }
}

/** An item is a memory, not a file store: its value must stay a few megabytes at most. */
const MAX_VALUE_BYTES = 4 * 1024 * 1024;

function requireStorableSize(put: StorePut): void {
  if (put.value === null) return;
  const bytes = Buffer.byteLength(JSON.stringify(put.value));
  if (bytes > MAX_VALUE_BYTES) {
    throw payloadTooLarge(
      `The value of ${put.key} is ${bytes} bytes of JSON; an item's value may be at most ${MAX_VALUE_BYTES}`,
    );
  }
}

function shown(item: StoreItemFound): StoreItem {
  return {
    namespace: item.namespace,
    key: item.key,
    value: item.value,
    created_at: item.created_at,
    updated_at: item.updated_at,
    ...(item.score === undefined ? {} : { score: item.score }),
  };
}
