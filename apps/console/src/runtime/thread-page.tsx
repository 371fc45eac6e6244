import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'wouter';
import { JsonView } from '../components/json-view';
import { StatusBadge } from '../components/status-badge';
import { Empty, QueryView } from '../components/states';
import { useRuntime } from './runtime-context';

/** A thread: its current state, its checkpoint history as a timeline, and its runs. */
export function ThreadPage({ threadId }: { readonly threadId: string }) {
  const { client, key } = useRuntime();
  const [chosen, setChosen] = useState<string | null>(null);
  const state = useQuery({
    queryKey: ['runtime', key, 'thread', threadId, 'state'],
    queryFn: ({ signal }) => client.threads.getState(threadId, undefined, { signal }),
    refetchInterval: 3000,
  });
  const history = useQuery({
    queryKey: ['runtime', key, 'thread', threadId, 'history'],
    queryFn: ({ signal }) => client.threads.getHistory(threadId, { limit: 100, signal }),
    refetchInterval: 3000,
  });
  const runs = useQuery({
    queryKey: ['runtime', key, 'thread', threadId, 'runs'],
    queryFn: ({ signal }) => client.runs.list(threadId, { limit: 100, signal }),
    refetchInterval: 3000,
  });
  return (
    <section>
      <h2>
        Thread <code>{threadId}</code>
      </h2>
      {runs.data?.[0] ? (
        <p>
          <Link href={`/chat/${runs.data[0].assistant_id}/${threadId}`}>Open as a chat</Link>
        </p>
      ) : null}
      <div className="columns">
        <section aria-labelledby="runs-title">
          <h3 id="runs-title">Runs</h3>
          <QueryView query={runs} what="runs">
            {(list) =>
              list.length === 0 ? (
                <Empty>No runs on this thread yet.</Empty>
              ) : (
                <ul className="runs">
                  {list.map((run) => (
                    <li key={run.run_id}>
                      <Link href={`/threads/${threadId}/runs/${run.run_id}`}>
                        <code>{run.run_id}</code>
                      </Link>{' '}
                      <StatusBadge status={run.status} />{' '}
                      <time dateTime={run.created_at}>
                        {new Date(run.created_at).toLocaleString()}
                      </time>
                    </li>
                  ))}
                </ul>
              )
            }
          </QueryView>
          <h3>Current state</h3>
          <QueryView query={state} what="the state">
            {(current) => <JsonView value={current.values} label="Current values" />}
          </QueryView>
        </section>
        <section aria-labelledby="checkpoints-title">
          <h3 id="checkpoints-title">Checkpoint history</h3>
          <QueryView query={history} what="checkpoints">
            {(checkpoints) =>
              checkpoints.length === 0 ? (
                <Empty>No checkpoints yet.</Empty>
              ) : (
                <ol className="timeline" aria-label="Checkpoint timeline">
                  {checkpoints.map((checkpoint) => {
                    const id = checkpoint.checkpoint.checkpoint_id ?? '';
                    const open = chosen === id;
                    return (
                      <li key={id} className="timeline-item">
                        <div className="timeline-head">
                          <time dateTime={checkpoint.created_at ?? ''}>
                            {checkpoint.created_at
                              ? new Date(checkpoint.created_at).toLocaleString()
                              : ''}
                          </time>
                          <strong>step {String(checkpoint.metadata?.step ?? '?')}</strong>
                          <span>{String(checkpoint.metadata?.source ?? '')}</span>
                          <span>next: {checkpoint.next.join(', ') || '—'}</span>
                        </div>
                        <button
                          type="button"
                          className="link"
                          aria-expanded={open}
                          onClick={() => setChosen(open ? null : id)}
                        >
                          <code>{id}</code>
                        </button>
                        {open ? (
                          <JsonView
                            value={checkpoint.values}
                            label={`Values at checkpoint ${id}`}
                          />
                        ) : null}
                      </li>
                    );
                  })}
                </ol>
              )
            }
          </QueryView>
        </section>
      </div>
    </section>
  );
}
