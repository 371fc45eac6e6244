import type { JsonObject } from '#libs/event-store';

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
  | { readonly type: 'ThreadDeleted'; readonly data: { thread_id: string; deleted_at: string } };

export const threadStream = (threadId: string): string => `thread-${threadId}`;
