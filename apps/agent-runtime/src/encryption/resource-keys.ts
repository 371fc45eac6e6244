import { notFound } from '#libs/domain';
import { sealFields, type DataKey, type DataKeyStore } from '#libs/encryption';
import type { EventStore, EventToAppend, RecordedEvent } from '#libs/event-store';
import {
  createsResource,
  isResourceErasure,
  isResourceSkeletonField,
  resourceScopeOf,
  type ResourceStreamOf,
} from './resource-content.js';

const NAMES: Readonly<Record<ResourceStreamOf['kind'], string>> = {
  store: 'Store item',
  cron: 'Cron',
  assistant: 'Assistant',
};

/**
 * Encrypts the content of a store item's, a cron's and an assistant's events under the resource's
 * data key, and destroys that key once the resource's deletion is appended (PostgreSQL does it
 * in the append's transaction, see resource-erasure.migrations.ts; this does it again after,
 * and drops the key from memory). A key is made the first time a resource is written; a write
 * that does not make the resource, to one whose deletion is the last event of its stream, is
 * refused rather than written under a key the deletion did not destroy.
 */
export class ResourceKeys {
  constructor(
    private readonly store: EventStore,
    private readonly keys: DataKeyStore,
  ) {}

  seal(
    stream: ResourceStreamOf,
    streamId: string,
    events: readonly EventToAppend[],
  ): Promise<EventToAppend[]> {
    const isClear = (field: string, value: Parameters<typeof isResourceSkeletonField>[2]) =>
      isResourceSkeletonField(stream, field, value);
    return Promise.all(
      events.map(async (event) => {
        if (isResourceErasure(stream, event.type)) return event;
        if (Object.entries(event.data).every(([field, value]) => isClear(field, value))) {
          return event;
        }
        const scope = resourceScopeOf(stream, event.data);
        if (scope === undefined) {
          throw new Error(`A ${event.type} event of ${streamId} names no item to encrypt it for`);
        }
        const creates = createsResource(stream, event.type);
        const { keyId, key } = await this.keyToWrite(scope, stream, streamId, creates);
        return { ...event, data: sealFields(event.data, isClear, keyId, key) };
      }),
    );
  }

  /** After an append: the keys of the resources it deleted are gone. */
  async afterAppend(stream: ResourceStreamOf, events: readonly EventToAppend[]): Promise<void> {
    for (const event of events) {
      if (!isResourceErasure(stream, event.type)) continue;
      const scope = resourceScopeOf(stream, event.data);
      if (scope === undefined) continue;
      // An expiry erases only an item not written since the sweeper looked: the trigger decides.
      if (event.type === 'StoreItemExpired') this.keys.forget(scope);
      else await this.keys.destroy(scope);
    }
  }

  /** A read of a deletion (appended by another replica, say): its key is no longer kept here. */
  notice(stream: ResourceStreamOf, event: RecordedEvent): void {
    if (!isResourceErasure(stream, event.type)) return;
    const scope = resourceScopeOf(stream, event.data);
    if (scope !== undefined) this.keys.forget(scope);
  }

  private async keyToWrite(
    scope: string,
    stream: ResourceStreamOf,
    streamId: string,
    creates: boolean,
  ): Promise<DataKey> {
    if (!creates && !this.keys.holds(scope)) {
      const [last] = await this.store.readStream(streamId, {
        direction: 'backwards',
        maxCount: 1,
      });
      if (last !== undefined && isResourceErasure(stream, last.type)) {
        throw notFound(`${NAMES[stream.kind]} not found`);
      }
    }
    return this.keys.keyOf(scope);
  }
}
