import type { Decider, JsonObject } from '#libs/event-store';
import { conflict, notFound } from '#libs/http';
import type { ThreadCopiedData, ThreadEvent, ThreadStateUpdatedData } from './thread.events.js';

export interface ThreadState {
  readonly exists: boolean;
  readonly metadata: JsonObject;
}

export type ThreadCommand =
  | {
      readonly kind: 'create';
      readonly thread_id: string;
      readonly metadata: JsonObject;
      readonly if_exists: 'raise' | 'do_nothing';
      readonly now: string;
    }
  | { readonly kind: 'update_metadata'; readonly metadata: JsonObject; readonly now: string }
  | { readonly kind: 'delete'; readonly thread_id: string; readonly now: string }
  | { readonly kind: 'record_state_update'; readonly update: ThreadStateUpdatedData }
  | { readonly kind: 'copy'; readonly copy: ThreadCopiedData };

export const initialThreadState: ThreadState = { exists: false, metadata: {} };

export function evolveThread(state: ThreadState, event: ThreadEvent): ThreadState {
  switch (event.type) {
    case 'ThreadCreated':
    case 'ThreadCopied':
      return { exists: true, metadata: event.data.metadata };
    case 'ThreadStateUpdated':
      return state;
    case 'ThreadMetadataUpdated':
      return { ...state, metadata: { ...state.metadata, ...event.data.metadata } };
    case 'ThreadDeleted':
      return initialThreadState;
  }
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
      ];
    case 'update_metadata':
      if (!state.exists) throw notFound('Thread not found');
      return [
        {
          type: 'ThreadMetadataUpdated',
          data: { metadata: command.metadata, updated_at: command.now },
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
