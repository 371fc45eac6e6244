import { domainEventOf } from '#libs/domain';
import type { Projection, RecordedEvent } from '#libs/event-store';
import { CRON_EVENT_TYPES, type CronEvent } from './cron.events.js';
import { CronEntity, type CronRow } from './cron.entity.js';

const date = (value: string | null): Date | null => (value === null ? null : new Date(value));

function cronIdOf(event: RecordedEvent): string | undefined {
  return CRON_EVENT_TYPES.has(event.type) ? event.streamId.slice('cron-'.length) : undefined;
}

export function evolveCronRow(row: CronRow | undefined, event: CronEvent): CronRow | undefined {
  switch (event.type) {
    case 'CronCreated': {
      const data = event.data;
      return {
        cron_id: data.cron_id,
        assistant_id: data.assistant_id,
        thread_id: data.thread_id,
        on_run_completed: data.on_run_completed,
        end_time: date(data.end_time),
        schedule: data.schedule,
        timezone: data.timezone,
        created_at: new Date(data.created_at),
        updated_at: new Date(data.created_at),
        payload: data.payload,
        user_id: data.user_id,
        next_run_date: date(data.next_run_date),
        metadata: data.metadata,
        enabled: data.enabled,
        last_tick: null,
        last_run_id: null,
        last_fired_at: null,
      };
    }
    case 'CronUpdated': {
      if (!row) return undefined;
      const { metadata, payload, end_time, ...changes } = event.data.changes;
      return {
        ...row,
        ...changes,
        ...(end_time === undefined ? {} : { end_time: date(end_time) }),
        payload: { ...row.payload, ...(payload ?? {}) },
        metadata: { ...row.metadata, ...(metadata ?? {}) },
        updated_at: new Date(event.data.updated_at),
        next_run_date: date(event.data.next_run_date),
      };
    }
    case 'CronDeleted':
      return undefined;
    case 'CronFired':
      return (
        row && {
          ...row,
          last_tick: new Date(event.data.tick),
          last_run_id: event.data.run_id,
          last_fired_at: new Date(event.data.fired_at),
          next_run_date: date(event.data.next_run_date),
        }
      );
  }
}

export const cronsProjection: Projection<CronRow> = {
  name: 'crons',
  entity: CronEntity,
  key: 'cron_id',
  eventTypes: CRON_EVENT_TYPES,
  keyOf: cronIdOf,
  evolve: (row, event) => evolveCronRow(row, domainEventOf<CronEvent>(event)),
};
