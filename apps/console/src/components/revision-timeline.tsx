import {
  actorLabel,
  cardDetails,
  newestFirst,
  type CardDetails,
  type TimelineCard,
  type TimelineItem,
} from '../domain/history';
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

function Moment({ at }: { readonly at: string }) {
  return <time dateTime={at}>{new Date(at).toLocaleString()}</time>;
}

function RevisionLink({
  revisionId,
  onShowRevision,
}: {
  readonly revisionId: string | null;
  readonly onShowRevision?: (revisionId: string) => void;
}) {
  if (!revisionId) return null;
  return onShowRevision ? (
    <button type="button" className="link" onClick={() => onShowRevision(revisionId)}>
      revision {shortId(revisionId)}
    </button>
  ) : (
    <span>revision {shortId(revisionId)}</span>
  );
}

/** The card's events, one click away. */
function CardEvents({
  items,
  onShowRevision,
}: {
  readonly items: readonly TimelineItem[];
  readonly onShowRevision?: (revisionId: string) => void;
}) {
  if (items.length === 0) return null;
  return (
    <details className="timeline-events">
      <summary>
        {items.length} {items.length === 1 ? 'event' : 'events'}
      </summary>
      <ol className="timeline-items">
        {items.map((item) => (
          <TimelineEntry key={item.entry.seq} item={item} onShowRevision={onShowRevision} />
        ))}
      </ol>
    </details>
  );
}

function CardBody({
  card,
  details,
}: {
  readonly card: TimelineCard;
  readonly details: CardDetails;
}) {
  switch (card.kind) {
    case 'change':
      return (
        <>
          {details.newSource ? <p className="timeline-source">New source uploaded</p> : null}
          {details.changes.length > 0 ? (
            <ul className="timeline-changes">
              {details.changes.map((change) => (
                <ChangeRow key={change.path} change={change} />
              ))}
            </ul>
          ) : null}
          {card.secrets_changed.length > 0 ? (
            <p className="timeline-secrets">
              Secrets set:{' '}
              {card.secrets_changed.map((name) => (
                <code key={name}>{name}</code>
              ))}
            </p>
          ) : null}
        </>
      );
    case 'status_walk':
      return <p className="timeline-walk">{card.summary}</p>;
    case 'failure':
      return card.message ? <p className="timeline-message">{card.message}</p> : null;
  }
}

function cardTitle(card: TimelineCard): string {
  switch (card.kind) {
    case 'change':
      return card.title;
    case 'status_walk':
      return card.activated ? 'Revision went live' : 'Revision';
    case 'failure':
      return 'Revision failed';
  }
}

/**
 * The deployment's history as a person reads it, newest first: a card for each change a person
 * made (who, what changed, secrets by name), one line for each walk of a revision with the time
 * each phase took, a card for each failure with its reason. Each card opens on its events.
 */
export function RevisionTimeline({
  cards,
  items,
  onShowRevision,
}: {
  readonly cards: readonly TimelineCard[];
  /** Every event of the same history, from `timelineOf`. */
  readonly items: readonly TimelineItem[];
  readonly onShowRevision?: (revisionId: string) => void;
}) {
  return (
    <ol className="timeline" aria-label="Revision timeline">
      {newestFirst(cards).map((card) => {
        const details = cardDetails(card, items);
        const [first] = details.items.slice(-1);
        return (
          <li
            key={`${card.kind}-${card.seq}`}
            className={`timeline-card timeline-${card.kind}`}
            data-kind={card.kind}
            data-first-event={first?.entry.event}
          >
            <div className="timeline-head timeline-card-head">
              <Moment at={card.recorded_at} />
              <strong>{cardTitle(card)}</strong>
              {card.kind === 'change' ? null : <StatusBadge status={card.status} />}
            </div>
            <div className="timeline-meta">
              {card.kind === 'change' ? <span>by {actorLabel(card.actor)}</span> : null}
              <RevisionLink revisionId={card.revision_id} onShowRevision={onShowRevision} />
            </div>
            <CardBody card={card} details={details} />
            <CardEvents items={details.items} onShowRevision={onShowRevision} />
          </li>
        );
      })}
    </ol>
  );
}
