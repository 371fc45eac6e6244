import type { AssistantRow } from './assistant.entity.js';
import type { AssistantVersionData } from './assistant.events.js';

/** An assistant as the API shows it: its active version (the SDK's `Assistant`). */
export interface Assistant {
  readonly assistant_id: string;
  readonly graph_id: string;
  readonly config: AssistantRow['config'];
  readonly context: AssistantRow['context'];
  readonly metadata: AssistantRow['metadata'];
  readonly created_at: string;
  readonly updated_at: string;
  readonly version: number;
  readonly name: string;
  readonly description: string | null;
}

/** One version of an assistant (the SDK's `AssistantVersion`). */
export type AssistantVersion = Omit<Assistant, 'updated_at'>;

export function assistantResource(row: AssistantRow): Assistant {
  return {
    assistant_id: row.assistant_id,
    graph_id: row.graph_id,
    config: row.config,
    context: row.context,
    metadata: row.metadata,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    version: row.version,
    name: row.name,
    description: row.description,
  };
}

export function assistantVersionResource(
  assistantId: string,
  version: AssistantVersionData,
): AssistantVersion {
  return {
    assistant_id: assistantId,
    version: version.version,
    graph_id: version.graph_id,
    config: version.config,
    context: version.context,
    metadata: version.metadata,
    created_at: version.created_at,
    name: version.name,
    description: version.description,
  };
}
