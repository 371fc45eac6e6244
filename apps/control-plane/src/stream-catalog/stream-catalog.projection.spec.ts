import { describe, expect, it } from '@jest/globals';
import type { RecordedEvent } from '#libs/event-store';
import { categoryOf, evolveStreamCatalog } from './stream-catalog.projection.js';

function recorded(streamId: string, type: string, at: string): RecordedEvent {
  return {
    eventId: '00000000-0000-4000-8000-000000000000',
    type,
    streamId,
    streamPosition: 0,
    logPosition: { commit: 1n, prepare: 1n },
    data: {},
    metadata: {},
    recordedAt: new Date(at),
  };
}

describe('stream catalog projection', () => {
  it('files a stream under the part of its name before the first dash', () => {
    expect(categoryOf('deployment-4b1c-77')).toBe('deployment');
    expect(categoryOf('heartbeat')).toBe('heartbeat');
  });

  it('counts events and keeps the first and the last', () => {
    const first = evolveStreamCatalog(
      undefined,
      recorded('run-1', 'RunCreated', '2026-01-01T00:00:00Z'),
    );
    const second = evolveStreamCatalog(
      first,
      recorded('run-1', 'RunStarted', '2026-01-01T00:00:05Z'),
    );

    expect(second).toEqual({
      stream_id: 'run-1',
      category: 'run',
      event_count: 2,
      first_event_at: new Date('2026-01-01T00:00:00Z'),
      last_event_at: new Date('2026-01-01T00:00:05Z'),
      last_event_type: 'RunStarted',
    });
  });
});
