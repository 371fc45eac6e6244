import type { BaseStoreConstructor } from '../application/application.js';
import type { JsonObject } from '#libs/event-store';
import type { StoreService } from './store.service.js';
import type { StoreItem } from './store-item-record.js';

/** LangGraph's store operations, told apart by their fields as LangGraph itself does. */
type Operation = Record<string, unknown>;

interface LangGraphItem {
  namespace: string[];
  key: string;
  value: JsonObject;
  createdAt: Date;
  updatedAt: Date;
  score?: number;
}

function toLangGraphItem(item: StoreItem): LangGraphItem {
  return {
    namespace: item.namespace,
    key: item.key,
    value: item.value,
    createdAt: new Date(item.created_at),
    updatedAt: new Date(item.updated_at),
    ...(typeof item.score === 'number' ? { score: item.score } : {}),
  };
}

const classes = new WeakMap<object, new (service: StoreService) => object>();

/**
 * The store a graph gets as `config.store` / `getStore()`: a subclass of the application's own
 * `BaseStore`, backed by the same log and read model as `/store`. Reads in a batch see the store
 * as it was before the batch; its puts are embedded together and appended per namespace at once.
 */
export function createGraphStore(BaseStore: BaseStoreConstructor, service: StoreService): object {
  let GraphStore = classes.get(BaseStore);
  if (!GraphStore) {
    GraphStore = class extends BaseStore {
      constructor(private readonly service: StoreService) {
        super();
      }

      async batch(operations: Operation[]): Promise<unknown[]> {
        const results = await Promise.all(operations.map((op) => this.read(op)));
        const puts = operations.filter((op) => 'value' in op && 'namespace' in op);
        await this.service.write(
          puts.map((op) => ({
            namespace: op.namespace as string[],
            key: op.key as string,
            value: op.value as JsonObject | null,
            ...(op.index === undefined ? {} : { index: op.index as false | string[] }),
          })),
        );
        return results;
      }

      private async read(op: Operation): Promise<unknown> {
        if ('value' in op) return undefined;
        if ('namespacePrefix' in op) {
          const items = await this.service.search({
            namespacePrefix: op.namespacePrefix as string[],
            ...(op.filter ? { filter: op.filter as Record<string, unknown> } : {}),
            ...(typeof op.query === 'string' && op.query ? { query: op.query } : {}),
            limit: (op.limit as number | undefined) ?? 10,
            offset: (op.offset as number | undefined) ?? 0,
          });
          return items.map(toLangGraphItem);
        }
        if ('matchConditions' in op || ('limit' in op && !('key' in op))) {
          const conditions = (op.matchConditions ?? []) as { matchType: string; path: string[] }[];
          return this.service.namespaces({
            ...pathOf(conditions, 'prefix', 'prefix'),
            ...pathOf(conditions, 'suffix', 'suffix'),
            ...(typeof op.maxDepth === 'number' ? { maxDepth: op.maxDepth } : {}),
            limit: (op.limit as number | undefined) ?? 100,
            offset: (op.offset as number | undefined) ?? 0,
          });
        }
        const item = await this.service.get(op.namespace as string[], op.key as string);
        return item && toLangGraphItem(item);
      }

      toJSON(): string {
        return '[BerthStore]';
      }
    };
    classes.set(BaseStore, GraphStore);
  }
  return new GraphStore(service);
}

function pathOf(
  conditions: readonly { matchType: string; path: string[] }[],
  matchType: string,
  as: 'prefix' | 'suffix',
): Partial<Record<'prefix' | 'suffix', string[]>> {
  const condition = conditions.find((c) => c.matchType === matchType);
  return condition ? { [as]: condition.path } : {};
}
