import type { TimelineItem } from '../domain/history';
import { shortJson, type Change } from '../domain/diff';
import { StatusBadge } from './status-badge';
import { shortId } from '../domain/short-id';

function ChangeRow({ change }: { readonly change: Change }) {
  switch (change.kind) {
    case 'added':
      return (
        <li>
          <code>{change.path}</code> = <code>{shortJson(change.after)}</code>
        </li>
      );
    case 'removed':
      return (
        <li>
          <code>{change.path}</code> removed (was <code>{shortJson(change.before)}</code>)
        </li>
      );
    case 'changed':
      return (
        <li>
          <code>{change.path}</code>: <del>{shortJson(change.before)}</del> →{' '}
          <ins>{shortJson(change.after)}</ins>
        </li>
      );
  }
}

/** The deployment's audit trail, newest first: when, who, what changed, status transitions. */
export function RevisionTimeline({
  items,
  onShowRevision,
}: {
  readonly items: readonly TimelineItem[];
  readonly onShowRevision?: (revisionId: string) => void;
}) {
  return (
    <ol className="timeline" aria-label="Revision timeline">
      {[...items].reverse().map((item) => (
        <li key={item.entry.seq} className="timeline-item" data-event={item.entry.event}>
          <div className="timeline-head">
            <time dateTime={item.entry.recorded_at}>
              {new Date(item.entry.recorded_at).toLocaleString()}
            </time>
            <strong>{item.title}</strong>
            {item.status ? <StatusBadge status={item.status} /> : null}
          </div>
          <div className="timeline-meta">
            <span>by {item.actor}</span>
            {item.entry.revision_id ? (
              onShowRevision ? (
                <button
                  type="button"
                  className="link"
                  onClick={() => onShowRevision(item.entry.revision_id ?? '')}
                >
                  revision {shortId(item.entry.revision_id)}
                </button>
              ) : (
                <span>revision {shortId(item.entry.revision_id)}</span>
              )
            ) : null}
          </div>
          {item.message ? <p className="timeline-message">{item.message}</p> : null}
          {item.changes.length > 0 ? (
            <ul className="timeline-changes">
              {item.changes.map((change) => (
                <ChangeRow key={change.path} change={change} />
              ))}
            </ul>
          ) : null}
          {item.secretNames.length > 0 ? (
            <p className="timeline-secrets">
              Secrets set:{' '}
              {item.secretNames.map((name) => (
                <code key={name}>{name}</code>
              ))}
            </p>
          ) : null}
        </li>
      ))}
    </ol>
  );
}
