import { useEffect, useState } from 'react';
import {
  FROM_START,
  followRun,
  type StreamEvent,
  type StreamPhase,
} from '../domain/resumable-stream';
import { summarizeEvent } from '../domain/event-summary';
import { useRuntime } from './runtime-context';

type Row =
  | { readonly kind: 'event'; readonly event: StreamEvent }
  | { readonly kind: 'note'; readonly text: string };

function phaseText(phase: StreamPhase): string {
  switch (phase.kind) {
    case 'connecting':
      return 'Connecting…';
    case 'streaming':
      return 'Streaming live';
    case 'reconnecting':
      return `Connection lost (${phase.cause}); resuming after event ${phase.after ?? '(start)'}, attempt ${phase.attempt}…`;
    case 'ended':
      return 'The stream ended';
    case 'failed':
      return `The stream failed: ${phase.cause}`;
  }
}

/** An event's number, mode, node and what it says, on one line. */
function EventHead({ event }: { readonly event: StreamEvent }) {
  const { mode, namespace, node, text } = summarizeEvent(event);
  return (
    <div className="event-head">
      <code>{event.id ?? '—'}</code> <span className="badge">{mode}</span>
      {namespace ? <span className="event-namespace">in {namespace}</span> : null}
      {node ? <strong className="event-node">{node}</strong> : null}
      <span className="event-text">{text}</span>
    </div>
  );
}

/**
 * A run's events as they arrive. A dropped connection is resumed from the last event received
 * (and says so); a finished run can be replayed from its start or from any of its events.
 */
export function StreamViewer({
  threadId,
  runId,
  onEnded,
}: {
  readonly threadId: string;
  readonly runId: string;
  /** Called when the stream ends: the run has finished. */
  readonly onEnded?: () => void;
}) {
  const { client } = useRuntime();
  const [replay, setReplay] = useState({ from: FROM_START, times: 0 });
  const replayFrom = (from: string) =>
    setReplay((previous) => ({ from, times: previous.times + 1 }));
  const [rows, setRows] = useState<Row[]>([]);
  const [phase, setPhase] = useState<StreamPhase>({ kind: 'connecting' });

  useEffect(() => {
    const { from } = replay;
    const stop = new AbortController();
    let lostAfter: string | undefined | null = null;
    setRows(from === FROM_START ? [] : [{ kind: 'note', text: `Replaying after event ${from}` }]);
    void followRun({
      from,
      signal: stop.signal,
      join: (lastEventId, signal) =>
        client.runs.joinStream(threadId, runId, {
          lastEventId,
          signal,
        }) as AsyncIterable<StreamEvent>,
      onEvent: (event) => setRows((previous) => [...previous, { kind: 'event', event }]),
      onPhase: (next) => {
        setPhase(next);
        if (next.kind === 'ended') onEnded?.();
        if (next.kind === 'reconnecting' && lostAfter === null) lostAfter = next.after;
        if (next.kind === 'streaming' && lostAfter !== null) {
          const after = lostAfter ?? '(start)';
          lostAfter = null;
          setRows((previous) => [
            ...previous,
            {
              kind: 'note',
              text: `Connection was lost after event ${after}; resumed from there, nothing missed`,
            },
          ]);
        }
      },
    });
    return () => stop.abort();
  }, [client, threadId, runId, replay, onEnded]);

  return (
    <section className="stream" aria-labelledby="stream-title">
      <div className="page-head">
        <h3 id="stream-title">Stream</h3>
        <span
          className={`phase phase-${phase.kind}`}
          role="status"
          aria-live="polite"
          data-testid="stream-phase"
        >
          {phaseText(phase)}
        </span>
        <button type="button" onClick={() => replayFrom(FROM_START)}>
          Replay from the start
        </button>
      </div>
      <ol className="events" data-testid="stream-events">
        {rows.map((row, index) =>
          row.kind === 'note' ? (
            <li key={`note-${index}`} className="note" data-testid="stream-note">
              {row.text}
            </li>
          ) : (
            <li
              key={row.event.id ?? `event-${index}`}
              className="event"
              data-event-id={row.event.id}
            >
              <EventHead event={row.event} />
              <div className="event-actions">
                {row.event.id ? (
                  <button
                    type="button"
                    className="link"
                    onClick={() => replayFrom(row.event.id ?? FROM_START)}
                  >
                    Replay from here
                  </button>
                ) : null}
                <details>
                  <summary>JSON</summary>
                  <pre>{JSON.stringify(row.event.data, null, 2)}</pre>
                </details>
              </div>
            </li>
          ),
        )}
      </ol>
    </section>
  );
}
