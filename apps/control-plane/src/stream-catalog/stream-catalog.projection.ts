import type { Projection, RecordedEvent } from '#libs/event-store';
import { StreamCatalogEntity, type StreamCatalogRow } from './stream-catalog.entity.js';

/** `deployment-<id>` is in category `deployment`; a stream without a dash is its own category. */
export function categoryOf(streamId: string): string {
  const dash = streamId.indexOf('-');
  return dash === -1 ? streamId : streamId.slice(0, dash);
}

export function evolveStreamCatalog(
  row: StreamCatalogRow | undefined,
  event: RecordedEvent,
): StreamCatalogRow {
  return {
    stream_id: event.streamId,
    category: categoryOf(event.streamId),
    event_count: (row?.event_count ?? 0) + 1,
    first_event_at: row?.first_event_at ?? event.recordedAt,
    last_event_at: event.recordedAt,
    last_event_type: event.type,
  };
}

export const streamCatalogProjection: Projection<StreamCatalogRow> = {
  name: 'stream_catalog',
  entity: StreamCatalogEntity,
  key: 'stream_id',
  keyOf: (event) => event.streamId,
  evolve: evolveStreamCatalog,
};
