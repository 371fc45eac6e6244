import { useEffect, useState } from 'react';
import { dataOf } from '../api/control-plane';
import type { components } from '../api/control-plane.schema';
import { readableLogLine } from '../domain/log-line';
import { sseRecords } from '../domain/sse';
import { useSession } from '../session';
import { ErrorDetail, Loading } from './states';

type LogLine = components['schemas']['RevisionLogs']['resources'][number];
type LogType = 'build' | 'deploy';

/**
 * One revision's build or deploy log. While the revision is still moving the log is followed
 * live (server-sent events); a settled revision's log is read once.
 */
export function RevisionLogs({
  deploymentId,
  revisionId,
  follow,
}: {
  readonly deploymentId: string;
  readonly revisionId: string;
  readonly follow: boolean;
}) {
  const { api } = useSession();
  const [type, setType] = useState<LogType>('build');
  const [lines, setLines] = useState<LogLine[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [live, setLive] = useState(false);

  useEffect(() => {
    const stop = new AbortController();
    setLines(null);
    setError(null);
    const path = '/v2/deployments/{deployment_id}/revisions/{revision_id}/logs' as const;
    const params = { path: { deployment_id: deploymentId, revision_id: revisionId } };
    const load = async () => {
      if (!follow) {
        const page = dataOf(
          await api.GET(path, { params: { ...params, query: { type } }, signal: stop.signal }),
        );
        setLines(typeof page === 'string' ? [] : page.resources);
        return;
      }
      const answer = await api.GET(path, {
        params: { ...params, query: { type, follow: true } },
        parseAs: 'stream',
        signal: stop.signal,
      });
      if (!answer.data) return;
      setLines([]);
      setLive(true);
      for await (const record of sseRecords(answer.data)) {
        if (record.event !== 'log') continue;
        const line = JSON.parse(record.data) as LogLine;
        setLines((previous) => [...(previous ?? []), line]);
      }
    };
    load()
      .catch((failure: unknown) => {
        if (!stop.signal.aborted) setError(failure);
      })
      .finally(() => setLive(false));
    return () => stop.abort();
  }, [api, deploymentId, revisionId, follow, type]);

  return (
    <section className="logs" aria-label={`${type} log of revision ${revisionId}`}>
      <div className="tabs" role="tablist">
        {(['build', 'deploy'] as const).map((name) => (
          <button
            key={name}
            type="button"
            role="tab"
            aria-selected={type === name}
            onClick={() => setType(name)}
          >
            {name === 'build' ? 'Build log' : 'Deploy log'}
          </button>
        ))}
        {live ? <span className="live">● following live</span> : null}
      </div>
      {error ? <ErrorDetail error={error} /> : null}
      {lines === null && !error ? <Loading what="the log" /> : null}
      {lines !== null ? (
        <pre className="log" tabIndex={0}>
          {lines.length === 0
            ? '(no lines yet)'
            : lines.map((line) => {
                const { time, level, text } = readableLogLine(line);
                return (
                  <span key={line.id} className="log-line" data-level={level || undefined}>
                    <time dateTime={line.timestamp}>{time}</time> {level ? `${level} ` : ''}
                    {text}
                    {'\n'}
                  </span>
                );
              })}
        </pre>
      ) : null}
    </section>
  );
}
