import type { EventStore } from '#libs/event-store';
import { deploymentStream, type RevisionCreatedData } from './domain/deployment.events.js';
import type { LogType } from '../logs/revision-log.js';
import type { LogRecord, RevisionLogs } from '../logs/revision-logs.js';

/** What following a deployment's logs sees: a line, or a new revision taking over. */
export type FollowedLogItem =
  | { readonly kind: 'log'; readonly record: LogRecord }
  | { readonly kind: 'revision'; readonly revisionId: string; readonly replaces: string };

const REVISION_CREATED = new Set(['RevisionCreated']);

/**
 * A deployment's logs followed across its revisions: the lines of `first`, then, each time the
 * deployment gets a new revision (a redeploy, a patch, a push), that it did and the new revision's
 * lines from its first. The revisions created before `after` (the deployment's stream position
 * when following began) are not announced.
 */
export async function* followAcrossRevisions(options: {
  readonly store: EventStore;
  readonly logs: RevisionLogs;
  readonly deploymentId: string;
  readonly first: string;
  readonly after: number;
  readonly type: LogType | undefined;
  readonly signal: AbortSignal;
}): AsyncGenerator<FollowedLogItem> {
  const { store, logs, deploymentId, type, signal } = options;
  const created = store.subscribeToStream(deploymentStream(deploymentId), {
    afterPosition: options.after,
    onlyTypes: REVISION_CREATED,
  });
  const stopCreated = (): void => void created.close();
  signal.addEventListener('abort', stopCreated, { once: true });
  const revisions = created[Symbol.asyncIterator]();
  let nextRevision = revisions.next();
  let current = options.first;
  try {
    while (!signal.aborted) {
      const revisionEnded = new AbortController();
      const endRevision = (): void => {
        revisionEnded.abort();
      };
      signal.addEventListener('abort', endRevision, { once: true });
      const lines = logs.follow(current, type, revisionEnded.signal)[Symbol.asyncIterator]();
      try {
        for (;;) {
          const nextLine = lines.next();
          const first = await Promise.race([
            nextLine.then((line) => ({ line })),
            nextRevision.then((revision) => ({ revision })),
          ]);
          if ('line' in first) {
            if (first.line.done) return;
            yield { kind: 'log', record: first.line.value };
            continue;
          }
          if (first.revision.done) return;
          const { revision_id: revisionId } = first.revision.value.data as RevisionCreatedData;
          nextRevision = revisions.next();
          // What the old revision still writes (its stopping) stays in its own log.
          void nextLine.catch(() => undefined);
          yield { kind: 'revision', revisionId, replaces: current };
          current = revisionId;
          break;
        }
      } finally {
        revisionEnded.abort();
        signal.removeEventListener('abort', endRevision);
        await lines.return(undefined);
      }
    }
  } finally {
    signal.removeEventListener('abort', stopCreated);
    await created.close();
  }
}
