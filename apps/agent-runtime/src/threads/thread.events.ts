import type { JsonObject, JsonValue } from '#libs/domain';
import type { ThreadStatus } from './thread.entity.js';

export type ThreadEvent =
  | {
      readonly type: 'ThreadCreated';
      readonly data: { thread_id: string; metadata: JsonObject; created_at: string };
    }
  | {
      readonly type: 'ThreadMetadataUpdated';
      /** The keys set by the update, merged into the thread's metadata. */
      readonly data: { metadata: JsonObject; updated_at: string };
    }
  | { readonly type: 'ThreadDeleted'; readonly data: { thread_id: string; deleted_at: string } }
  | { readonly type: 'ThreadStateUpdated'; readonly data: ThreadStateUpdatedData }
  | { readonly type: 'ThreadCopied'; readonly data: ThreadCopiedData }
  | {
      readonly type: 'ThreadTtlSet';
      /** The thread is deleted once it has been left alone this long (created, updated, run). */
      readonly data: { ttl_minutes: number; strategy: 'delete'; set_at: string };
    }
  | {
      readonly type: 'ThreadExpired';
      /** Deleted by the sweeper: its TTL ran out. */
      readonly data: { thread_id: string; ttl_minutes: number; expired_at: string };
    };

/** The state as it stands after an update through `POST /threads/{id}/state`. */
export type ThreadStateSnapshot = {
  values: JsonValue;
  next: string[];
  interrupts: JsonObject;
};

export type ThreadStateUpdatedData = ThreadStateSnapshot & {
  checkpoint_id: string;
  /** The node the update was written as; null when LangGraph chose it. */
  as_node: string | null;
  updated_at: string;
};

/** The first event of a thread made by copying another one, checkpoints included. */
export type ThreadCopiedData = {
  thread_id: string;
  copied_from: string;
  metadata: JsonObject;
  values: JsonValue;
  interrupts: JsonObject;
  status: ThreadStatus;
  created_at: string;
};

export const threadStream = (threadId: string): string => `thread-${threadId}`;
