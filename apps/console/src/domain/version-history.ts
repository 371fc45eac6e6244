import { shortJson } from './diff';

/** A field a version changed, as the runtime answers it with each version. */
export type VersionChange =
  | { readonly field: string; readonly change: 'added'; readonly to: unknown }
  | { readonly field: string; readonly change: 'removed'; readonly from: unknown }
  | {
      readonly field: string;
      readonly change: 'modified';
      readonly from: unknown;
      readonly to: unknown;
    };

/** What Berth's runtime adds to the SDK's `AssistantVersion`; absent from other servers. */
export interface VersionProvenance {
  readonly previous_version?: number | null;
  readonly changed_by?: Readonly<Record<string, unknown>> | null;
  readonly changes?: readonly VersionChange[];
}

/** Who made a version, as an auditor reads it. */
export function versionAuthor(changedBy: VersionProvenance['changed_by']): string {
  if (!changedBy) return 'not recorded';
  if (changedBy.kind === 'user' && typeof changedBy.identity === 'string') {
    return changedBy.identity;
  }
  if (changedBy.kind === 'platform') return 'the platform (API key)';
  return JSON.stringify(changedBy);
}

/** One change on one line: `context.model: small → large`, `metadata.tier added: gold`. */
export function changeLine(change: VersionChange): string {
  switch (change.change) {
    case 'added':
      return `${change.field} added: ${shortJson(change.to)}`;
    case 'removed':
      return `${change.field} removed (was ${shortJson(change.from)})`;
    case 'modified':
      return `${change.field}: ${shortJson(change.from)} → ${shortJson(change.to)}`;
  }
}

/** What a version changed, in words: from which version, or as the first. */
export function changesFrom(version: VersionProvenance): string {
  if (version.changes === undefined) return 'not known';
  if (version.previous_version == null) return 'first version';
  return version.changes.length === 0
    ? `same as version ${version.previous_version}`
    : `from version ${version.previous_version}`;
}
