import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { dataOf, type Revision } from '../api/control-plane';
import { ConfirmDialog } from '../components/confirm-dialog';
import { RevisionLogs } from '../components/revision-logs';
import { RevisionTimeline } from '../components/revision-timeline';
import { ErrorDetail, Loading, QueryView } from '../components/states';
import { StatusBadge } from '../components/status-badge';
import { isSettled, timelineOf } from '../domain/history';
import { useSession } from '../session';
import { LiveAt } from './live-at';
import { shortId } from '../domain/short-id';

/** While anything is moving the page follows it; once settled, it asks now and then. */
const FOLLOW_MS = 1000;
const IDLE_MS = 10_000;

/** A revision whose build failed, or that never got one: redeploying it builds it again. */
function neverBuilt(revision: { readonly status: string }): boolean {
  return revision.status === 'BUILD_FAILED' || revision.status === 'CREATE_FAILED';
}

export function DeploymentPage({ deploymentId }: { readonly deploymentId: string }) {
  const { api } = useSession();
  const queries = useQueryClient();
  const [, navigate] = useLocation();
  const [shownRevision, setShownRevision] = useState<string | null>(null);
  const [redeploying, setRedeploying] = useState<Revision | null>(null);
  const [deleting, setDeleting] = useState(false);
  const path = { deployment_id: deploymentId };

  const revisions = useQuery({
    queryKey: ['revisions', deploymentId],
    queryFn: async ({ signal }) =>
      dataOf(
        await api.GET('/v2/deployments/{deployment_id}/revisions', {
          params: { path, query: { limit: 100 } },
          signal,
        }),
      ),
    refetchInterval: (query) =>
      query.state.data?.resources.every((revision) => isSettled(revision.status))
        ? IDLE_MS
        : FOLLOW_MS,
  });
  const moving = revisions.data?.resources.some((revision) => !isSettled(revision.status)) ?? true;
  const deployment = useQuery({
    queryKey: ['deployment', deploymentId],
    queryFn: async ({ signal }) =>
      dataOf(await api.GET('/v2/deployments/{deployment_id}', { params: { path }, signal })),
    refetchInterval: moving ? FOLLOW_MS : IDLE_MS,
  });
  const history = useQuery({
    queryKey: ['history', deploymentId],
    queryFn: async ({ signal }) =>
      dataOf(
        await api.GET('/v2/deployments/{deployment_id}/history', { params: { path }, signal }),
      ),
    refetchInterval: moving ? FOLLOW_MS : IDLE_MS,
  });
  const timeline = useMemo(() => timelineOf(history.data?.resources ?? []), [history.data]);

  const refresh = () =>
    queries.invalidateQueries({ predicate: (query) => query.queryKey.includes(deploymentId) });
  const redeploy = useMutation({
    mutationFn: async (revision: Revision) =>
      dataOf(
        await api.POST('/v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy', {
          params: { path: { deployment_id: deploymentId, revision_id: revision.id } },
        }),
      ),
    onSuccess: () => {
      setRedeploying(null);
      void refresh();
    },
  });
  const remove = useMutation({
    mutationFn: async () => {
      await api.DELETE('/v2/deployments/{deployment_id}', { params: { path } });
    },
    onSuccess: () => {
      void queries.invalidateQueries({ queryKey: ['deployments'] });
      navigate('/');
    },
  });

  // One answer to "which revision is live" on the page: the deployment's, once it is loaded.
  const isLive = (revision: Revision): boolean =>
    deployment.data ? deployment.data.active_revision_id === revision.id : revision.active;
  const logsOf =
    shownRevision ??
    deployment.data?.active_revision_id ??
    deployment.data?.latest_revision_id ??
    null;
  const logsRevision = revisions.data?.resources.find((revision) => revision.id === logsOf);

  if (deployment.error) {
    // A deleted deployment is gone from the API, but its history stays in the log for auditors.
    return (
      <main>
        <ErrorDetail error={deployment.error} retry={() => void deployment.refetch()} />
        {history.data ? (
          <section aria-labelledby="timeline-title">
            <h2 id="timeline-title">Its history</h2>
            <LiveAt history={history.data.resources} />
            <RevisionTimeline cards={history.data.timeline} items={timeline} />
          </section>
        ) : null}
        <p>
          <Link href="/">← all deployments</Link>
        </p>
      </main>
    );
  }

  // Revisions and history are shown with the deployment, never before it (nor their errors).
  if (!deployment.data) {
    return (
      <main>
        <Loading what="the deployment" />
      </main>
    );
  }

  return (
    <main>
      <QueryView query={deployment} what="the deployment">
        {(current) => (
          <>
            <header className="page-head">
              <h1>{current.name}</h1>
              <StatusBadge status={current.status} />
              <nav className="page-actions">
                <Link href={`/deployments/${deploymentId}/runtime`}>Its runtime</Link>
                <button type="button" className="danger" onClick={() => setDeleting(true)}>
                  Delete…
                </button>
              </nav>
            </header>
            <dl className="facts">
              <dt>URL</dt>
              <dd>
                {typeof current.source_config.custom_url === 'string' ? (
                  <code>{current.source_config.custom_url}</code>
                ) : (
                  '—'
                )}
              </dd>
              <dt>Source</dt>
              <dd>{current.source}</dd>
              <dt>Active revision</dt>
              <dd>
                <code>{current.active_revision_id ?? '—'}</code>
              </dd>
              <dt>Secrets</dt>
              <dd>
                {current.secrets.length
                  ? current.secrets.map((secret) => <code key={secret.name}>{secret.name}</code>)
                  : 'none'}
              </dd>
            </dl>
            {deleting ? (
              <ConfirmDialog
                title={`Delete ${current.name}`}
                actionLabel="Delete deployment"
                typeToConfirm={current.name}
                busy={remove.isPending}
                onConfirm={() => remove.mutate()}
                onCancel={() => setDeleting(false)}
              >
                <p>Its runtime stops and its database is dropped. Its history stays in the log.</p>
                {remove.error ? <ErrorDetail error={remove.error} /> : null}
              </ConfirmDialog>
            ) : null}
          </>
        )}
      </QueryView>

      <div className="columns">
        <section aria-labelledby="revisions-title">
          <h2 id="revisions-title">Revisions</h2>
          <QueryView query={revisions} what="revisions">
            {(page) => (
              <ul className="revisions">
                {page.resources.map((revision) => (
                  <li
                    key={revision.id}
                    data-revision-id={revision.id}
                    aria-current={revision.id === logsOf ? 'true' : undefined}
                  >
                    <button
                      type="button"
                      className="link"
                      onClick={() => setShownRevision(revision.id)}
                    >
                      <code>{shortId(revision.id)}</code>
                    </button>
                    <StatusBadge status={revision.status} />
                    {isLive(revision) ? <span className="badge badge-good">live</span> : null}
                    <time dateTime={revision.created_at}>
                      {new Date(revision.created_at).toLocaleString()}
                    </time>
                    {revision.status_message ? (
                      <p className="timeline-message">{revision.status_message}</p>
                    ) : null}
                    <Link href={`/deployments/${deploymentId}/revisions/${revision.id}/changes`}>
                      Changes
                    </Link>
                    {!isLive(revision) ? (
                      <button type="button" onClick={() => setRedeploying(revision)}>
                        {neverBuilt(revision) ? 'Build again…' : 'Redeploy…'}
                      </button>
                    ) : null}
                  </li>
                ))}
              </ul>
            )}
          </QueryView>
          {redeploying ? (
            <ConfirmDialog
              title={
                neverBuilt(redeploying) ? 'Build a revision again' : 'Redeploy an earlier revision'
              }
              actionLabel={
                neverBuilt(redeploying)
                  ? `Build ${shortId(redeploying.id)} again`
                  : `Redeploy ${shortId(redeploying.id)}`
              }
              busy={redeploy.isPending}
              onConfirm={() => redeploy.mutate(redeploying)}
              onCancel={() => {
                redeploy.reset();
                setRedeploying(null);
              }}
            >
              <p>
                Revision <code>{redeploying.id}</code> of{' '}
                {new Date(redeploying.created_at).toLocaleString()}{' '}
                {neverBuilt(redeploying)
                  ? 'is built again from its source (its build failed) and, once built, becomes the live one, with its own secrets.'
                  : 'becomes the live one again, with its own secrets: from its kept build, or built again from its source when its build is no longer kept.'}
              </p>
              {redeploy.error ? <ErrorDetail error={redeploy.error} /> : null}
            </ConfirmDialog>
          ) : null}
          {logsOf ? (
            <RevisionLogs
              deploymentId={deploymentId}
              revisionId={logsOf}
              follow={logsRevision ? !isSettled(logsRevision.status) : false}
            />
          ) : null}
        </section>

        <section aria-labelledby="timeline-title">
          <h2 id="timeline-title">Timeline</h2>
          <QueryView query={history} what="the history">
            {(entries) => (
              <>
                <LiveAt history={entries.resources} />
                <RevisionTimeline
                  cards={entries.timeline}
                  items={timeline}
                  onShowRevision={setShownRevision}
                />
              </>
            )}
          </QueryView>
        </section>
      </div>
    </main>
  );
}
