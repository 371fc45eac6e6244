import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { Link } from 'wouter';
import { JsonView } from '../components/json-view';
import { StatusBadge } from '../components/status-badge';
import { QueryView } from '../components/states';
import { useRuntime } from './runtime-context';
import { StreamViewer } from './stream-viewer';
import { shortId } from '../domain/short-id';

export function RunPage({
  threadId,
  runId,
}: {
  readonly threadId: string;
  readonly runId: string;
}) {
  const { client, key } = useRuntime();
  const queries = useQueryClient();
  const refresh = useCallback(
    () => void queries.invalidateQueries({ queryKey: ['runtime', key, 'run', runId] }),
    [queries, key, runId],
  );
  const run = useQuery({
    queryKey: ['runtime', key, 'run', runId],
    queryFn: ({ signal }) => client.runs.get(threadId, runId, { signal }),
    refetchInterval: (query) =>
      ['pending', 'running'].includes(query.state.data?.status ?? 'pending') ? 1000 : false,
  });
  return (
    <section>
      <p>
        <Link href={`/threads/${threadId}`}>← thread {shortId(threadId)}</Link>
      </p>
      <QueryView query={run} what="the run">
        {(current) => (
          <header className="page-head">
            <h2>
              Run <code>{current.run_id}</code>
            </h2>
            <StatusBadge status={current.status} />
            <details>
              <summary>Details</summary>
              <JsonView value={current} label="The run" />
            </details>
          </header>
        )}
      </QueryView>
      <StreamViewer threadId={threadId} runId={runId} onEnded={refresh} />
    </section>
  );
}
