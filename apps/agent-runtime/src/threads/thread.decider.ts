import { conflict, notFound, type Decider, type JsonObject } from '#libs/domain';
import type { ThreadCopiedData, ThreadEvent, ThreadStateUpdatedData } from './thread.events.js';

export interface ThreadState {
  readonly exists: boolean;
  readonly metadata: JsonObject;
  readonly ttlMinutes: number | null;
}

/** `ttl` of a create or an update: minutes the thread may be left alone before it is deleted. */
export type ThreadTtl = { readonly ttl_minutes: number } | null;

export type ThreadCommand =
  | {
      readonly kind: 'create';
      readonly thread_id: string;
      readonly metadata: JsonObject;
      readonly if_exists: 'raise' | 'do_nothing';
      readonly ttl: ThreadTtl;
      readonly now: string;
    }
  | {
      readonly kind: 'update_metadata';
      readonly metadata: JsonObject;
      readonly ttl: ThreadTtl;
      readonly now: string;
    }
  | { readonly kind: 'expire'; readonly thread_id: string; readonly now: string }
  | { readonly kind: 'delete'; readonly thread_id: string; readonly now: string }
  | { readonly kind: 'record_state_update'; readonly update: ThreadStateUpdatedData }
  | { readonly kind: 'copy'; readonly copy: ThreadCopiedData };

export const initialThreadState: ThreadState = { exists: false, metadata: {}, ttlMinutes: null };

export function evolveThread(state: ThreadState, event: ThreadEvent): ThreadState {
  switch (event.type) {
    case 'ThreadCreated':
    case 'ThreadCopied':
      return { exists: true, metadata: event.data.metadata, ttlMinutes: null };
    case 'ThreadTtlSet':
      return { ...state, ttlMinutes: event.data.ttl_minutes };
    case 'ThreadStateUpdated':
      return state;
    case 'ThreadMetadataUpdated':
      return { ...state, metadata: { ...state.metadata, ...event.data.metadata } };
    case 'ThreadDeleted':
    case 'ThreadExpired':
      return initialThreadState;
  }
}

function ttlSet(ttl: ThreadTtl, now: string): ThreadEvent[] {
  if (!ttl) return [];
  return [
    {
      type: 'ThreadTtlSet',
      data: { ttl_minutes: ttl.ttl_minutes, strategy: 'delete', set_at: now },
    },
  ];
}

function decide(command: ThreadCommand, state: ThreadState): ThreadEvent[] {
  switch (command.kind) {
    case 'create':
      if (state.exists) {
        if (command.if_exists === 'do_nothing') return [];
        throw conflict(`Thread ${command.thread_id} already exists`);
      }
      return [
        {
          type: 'ThreadCreated',
          data: {
            thread_id: command.thread_id,
            metadata: command.metadata,
            created_at: command.now,
          },
        },
        ...ttlSet(command.ttl, command.now),
      ];
    case 'update_metadata':
      if (!state.exists) throw notFound('Thread not found');
      return [
        {
          type: 'ThreadMetadataUpdated',
          data: { metadata: command.metadata, updated_at: command.now },
        },
        ...ttlSet(command.ttl, command.now),
      ];
    case 'expire':
      // Another sweeper got there first, or the thread was deleted meanwhile: nothing to do.
      if (!state.exists || state.ttlMinutes === null) return [];
      return [
        {
          type: 'ThreadExpired',
          data: {
            thread_id: command.thread_id,
            ttl_minutes: state.ttlMinutes,
            expired_at: command.now,
          },
        },
      ];
    case 'delete':
      if (!state.exists) throw notFound(`Thread ${command.thread_id} not found`);
      return [
        { type: 'ThreadDeleted', data: { thread_id: command.thread_id, deleted_at: command.now } },
      ];
    case 'record_state_update':
      if (!state.exists) throw notFound('Thread not found');
      return [{ type: 'ThreadStateUpdated', data: command.update }];
    case 'copy':
      if (state.exists) throw conflict(`Thread ${command.copy.thread_id} already exists`);
      return [{ type: 'ThreadCopied', data: command.copy }];
  }
}

export const threadDecider: Decider<ThreadState, ThreadCommand, ThreadEvent> = {
  initialState: initialThreadState,
  evolve: evolveThread,
  decide,
};
