import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { EventStore, PostgresEventStore } from '#libs/event-store';
import {
  CHECKPOINT_SAVED,
  CHECKPOINT_WRITES_SAVED,
  checkpointStreamOf,
} from '../checkpoints/checkpoint-events.js';
import {
  tallyEvents,
  threadStorageOf,
  type StorageTally,
  type ThreadStorage,
} from './thread-storage.js';
import { ThreadsService } from './threads.service.js';

/**
 * The bytes of a thread's checkpoint stream in PostgreSQL, in one statement: each event's data as
 * jsonb gives its text back (`octet_length(data::text)`), and each channel value of a checkpoint
 * kept as JSON the same way. `jsonb_each` and `jsonb_array_length` are given an empty value for a
 * malformed event rather than failing the statement.
 */
const TALLY_SQL = `
  with events as (
    select event_type, data, octet_length(data::text) as bytes
      from es_events
     where stream_id = $1
  )
  select 'pending_writes' as section, null as channel,
         coalesce(sum(case when jsonb_typeof(data->'writes') = 'array'
                           then jsonb_array_length(data->'writes') else 0 end), 0) as rows,
         coalesce(sum(bytes), 0) as bytes
    from events
   where event_type = $2
  union all
  select 'checkpoints', null, count(*) filter (where event_type = $3), coalesce(sum(bytes), 0)
    from events
   where event_type <> $2
  union all
  select 'channel_values', value.key, count(*), sum(octet_length(value.value::text))
    from events,
         jsonb_each(case when data->'checkpoint'->>'type' = 'json'
                          and jsonb_typeof(data->'checkpoint'->'value'->'channel_values') = 'object'
                         then data->'checkpoint'->'value'->'channel_values'
                         else '{}'::jsonb end) as value
   where event_type = $3
   group by value.key
`;

interface TallyRow {
  readonly section: StorageTally['section'];
  readonly channel: string | null;
  readonly rows: string;
  readonly bytes: string;
}

/** `GET /threads/{thread_id}/storage`: what the thread's checkpoints take in the event log. */
@Injectable()
export class ThreadStorageService {
  constructor(
    @Inject(ThreadsService) private readonly threads: ThreadsService,
    @Inject(EventStore) private readonly store: EventStore,
    @Inject(DataSource) private readonly dataSource: DataSource,
  ) {}

  async storage(threadId: string): Promise<ThreadStorage> {
    await this.threads.row(threadId);
    return threadStorageOf(threadId, await this.tallies(checkpointStreamOf(threadId)));
  }

  private async tallies(stream: string): Promise<StorageTally[]> {
    if (this.store instanceof PostgresEventStore) {
      const rows: TallyRow[] = await this.dataSource.query(TALLY_SQL, [
        stream,
        CHECKPOINT_WRITES_SAVED,
        CHECKPOINT_SAVED,
      ]);
      return rows.map((row) => ({
        section: row.section,
        channel: row.channel,
        rows: Number(row.rows),
        bytes: Number(row.bytes),
      }));
    }
    // EventStoreDB keeps each event's data as the UTF-8 JSON text its client wrote: the stream is
    // read back and that text measured.
    const events = await this.store.readStream(stream);
    return tallyEvents(events, (value) => Buffer.byteLength(JSON.stringify(value), 'utf8'));
  }
}
