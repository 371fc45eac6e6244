import type { JsonObject, Projection } from '#libs/event-store';
import { ListenerEntity, type ListenerRow } from './listener.entity.js';

export const LISTENER_STREAM_PREFIX = 'listener-';
export const listenerStream = (listenerId: string): string =>
  `${LISTENER_STREAM_PREFIX}${listenerId}`;

export type ListenerRegisteredData = {
  listener_id: string;
  tenant_id: string;
  name: string;
  compute_type: 'cluster';
  compute_config: JsonObject;
  created_at: string;
};

export const listenersProjection: Projection<ListenerRow> = {
  name: 'listeners',
  entity: ListenerEntity,
  key: 'listener_id',
  keyOf: (event) =>
    event.type === 'ListenerRegistered'
      ? event.streamId.slice(LISTENER_STREAM_PREFIX.length)
      : undefined,
  evolve: (row, event) => {
    const data = event.data as ListenerRegisteredData;
    return row ?? { ...data, created_at: new Date(data.created_at) };
  },
};
