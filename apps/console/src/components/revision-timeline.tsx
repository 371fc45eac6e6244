import { groupTimeline, type TimelineGroup, type TimelineItem } from '../domain/history';
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

function TimelineEntry({
  item,
  onShowRevision,
}: {
  readonly item: TimelineItem;
  readonly onShowRevision?: (revisionId: string) => void;
}) {
  return (
    <li className="timeline-item" data-event={item.entry.event}>
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
  );
}

function groupTitle(group: TimelineGroup): string {
  return group.revisionId ? `Revision ${shortId(group.revisionId)}` : 'The deployment';
}

/**
 * The deployment's audit trail, newest first: when, who, what changed, status transitions. Runs
 * of events about one revision are grouped; the newest group is open, the others one click away.
 */
export function RevisionTimeline({
  items,
  onShowRevision,
}: {
  readonly items: readonly TimelineItem[];
  readonly onShowRevision?: (revisionId: string) => void;
}) {
  const groups = groupTimeline(items);
  return (
    <ol className="timeline" aria-label="Revision timeline">
      {groups.map((group, index) => {
        const [newest] = group.items;
        return (
          <li key={newest?.entry.seq} className="timeline-group">
            <details open={index === 0}>
              <summary>
                <strong>{groupTitle(group)}</strong>
                {group.status ? <StatusBadge status={group.status} /> : null}
                <span className="timeline-count">
                  {group.items.length} {group.items.length === 1 ? 'event' : 'events'}
                  {newest ? `, last ${new Date(newest.entry.recorded_at).toLocaleString()}` : ''}
                </span>
              </summary>
              <ol className="timeline-items">
                {group.items.map((item) => (
                  <TimelineEntry key={item.entry.seq} item={item} onShowRevision={onShowRevision} />
                ))}
              </ol>
            </details>
          </li>
        );
      })}
    </ol>
  );
}
