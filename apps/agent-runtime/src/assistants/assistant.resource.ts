import type { AssistantRow } from './assistant.entity.js';
import type { AssistantVersionData } from './assistant.events.js';
import type { VersionProvenance } from './version-changes.js';

export function assistantResource(row: AssistantRow) {
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

/**
 * A version as the SDK's `AssistantVersion` has it, plus where it came from: the version it was
 * made from, who made it and what it changed (fields the SDK does not know and leaves alone).
 */
export function assistantVersionResource(
  assistantId: string,
  version: AssistantVersionData,
  provenance: VersionProvenance | undefined,
) {
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
    previous_version: provenance?.previous_version ?? null,
    changed_by: provenance?.changed_by ?? null,
    changes: provenance?.changes ?? [],
  };
}

/** An assistant as the API shows it: its active version (the SDK's `Assistant`). */
export type Assistant = ReturnType<typeof assistantResource>;

/** One version of an assistant (the SDK's `AssistantVersion`). */
export type AssistantVersion = ReturnType<typeof assistantVersionResource>;
