export type LogType = 'build' | 'deploy';
export const LOG_TYPES: readonly LogType[] = ['build', 'deploy'];

export type LogLine = { timestamp: string; type: LogType; message: string };

/** Lines are appended in batches: one `RevisionLogLines` event holds many lines. */
export const REVISION_LOG_EVENT = 'RevisionLogLines';
export const revisionLogStream = (revisionId: string): string => `revision_log-${revisionId}`;
