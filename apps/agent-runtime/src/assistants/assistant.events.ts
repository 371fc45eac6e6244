import type { JsonObject } from '#libs/domain';

export interface AssistantVersionData extends JsonObject {
  version: number;
  graph_id: string;
  name: string;
  description: string | null;
  config: JsonObject;
  context: JsonObject;
  metadata: JsonObject;
  created_at: string;
}

export type AssistantEvent =
  | {
      readonly type: 'AssistantCreated';
      readonly data: AssistantVersionData & { assistant_id: string };
    }
  | { readonly type: 'AssistantVersioned'; readonly data: AssistantVersionData }
  | {
      readonly type: 'AssistantLatestVersionSet';
      readonly data: { version: number; updated_at: string };
    }
  | { readonly type: 'AssistantDeleted'; readonly data: { deleted_at: string } };

export const assistantStream = (assistantId: string): string => `assistant-${assistantId}`;
