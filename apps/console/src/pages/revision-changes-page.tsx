import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'wouter';
import { dataOf, type RevisionChanges } from '../api/control-plane';
import { DiffViewer } from '../components/diff-viewer';
import { Empty, QueryView } from '../components/states';
import { shortId } from '../domain/short-id';
import { diffStat } from '../domain/unified-diff';
import { useSession } from '../session';

const MARKS = { added: '+', removed: '−', modified: '~' } as const;

const shown = (value: unknown): string =>
  value === null || value === undefined ? '—' : JSON.stringify(value);

/** What changed in one revision: against the one it replaced, or another the user picks. */
export function RevisionChangesPage({
  deploymentId,
  revisionId,
}: {
  readonly deploymentId: string;
  readonly revisionId: string;
}) {
  const { api } = useSession();
  const [against, setAgainst] = useState('');
  const [selected, setSelected] = useState<string | null>(null);
  const revisions = useQuery({
    queryKey: ['revisions', deploymentId],
    queryFn: async ({ signal }) =>
      dataOf(
        await api.GET('/v2/deployments/{deployment_id}/revisions', {
          params: { path: { deployment_id: deploymentId }, query: { limit: 100 } },
          signal,
        }),
      ),
  });
  const changes = useQuery({
    queryKey: ['revision-changes', deploymentId, revisionId, against],
    queryFn: async ({ signal }) =>
      dataOf(
        await api.GET('/v2/deployments/{deployment_id}/revisions/{revision_id}/changes', {
          params: {
            path: { deployment_id: deploymentId, revision_id: revisionId },
            query: against ? { against } : {},
          },
          signal,
        }),
      ),
  });
  const others = (revisions.data?.resources ?? []).filter((revision) => revision.id !== revisionId);

  return (
    <main className="revision-changes">
      <header className="page-head">
        <h1>
          Changes in revision <code title={revisionId}>{shortId(revisionId)}</code>
        </h1>
        <nav className="page-actions">
          <Link href={`/deployments/${deploymentId}`}>← the deployment</Link>
        </nav>
      </header>
      <label className="against">
        Compared with{' '}
        <select
          value={against}
          onChange={(event) => {
            setAgainst(event.target.value);
            setSelected(null);
          }}
        >
          <option value="">the revision it replaced</option>
          {others.map((revision) => (
            <option key={revision.id} value={revision.id}>
              {shortId(revision.id)} ({revision.status},{' '}
              {new Date(revision.created_at).toLocaleString()})
            </option>
          ))}
        </select>
      </label>
      <QueryView query={changes} what="the changes">
        {(answer) => <ChangesView changes={answer} selected={selected} onSelect={setSelected} />}
      </QueryView>
    </main>
  );
}

function ChangesView({
  changes,
  selected,
  onSelect,
}: {
  readonly changes: RevisionChanges;
  readonly selected: string | null;
  readonly onSelect: (path: string) => void;
}) {
  const withDiff = changes.files.filter((file) => file.diff !== undefined);
  const shownFile =
    changes.files.find((file) => file.path === selected) ?? withDiff[0] ?? changes.files[0];
  return (
    <>
      <p className="changes-against">
        {changes.against ? (
          <>
            Against revision <code title={changes.against}>{shortId(changes.against)}</code>
          </>
        ) : (
          "Against nothing: the deployment's first revision"
        )}
      </p>
      {!changes.source_kept ? (
        <p className="state state-empty" role="status">
          Sources not compared: {changes.source_reason}
        </p>
      ) : null}
      {changes.capped ? <p className="state state-empty">Capped: {changes.capped}</p> : null}
      {changes.commit_range ? (
        <section aria-labelledby="commits-title">
          <h2 id="commits-title">Commits</h2>
          <p>
            <code>{changes.commit_range.from ?? '—'}</code> →{' '}
            <code>{changes.commit_range.to ?? '—'}</code>
          </p>
          {changes.commit_range.commits && changes.commit_range.commits.length > 0 ? (
            <ul className="commits" aria-label="Commits">
              {changes.commit_range.commits.map((commit) => (
                <li key={commit.sha}>
                  <code title={commit.sha}>{commit.sha.slice(0, 12)}</code> {commit.message}
                </li>
              ))}
            </ul>
          ) : null}
          {changes.commit_range.truncated ? <p>Older commits of the range are left out.</p> : null}
          {changes.commit_range.reason ? <p>{changes.commit_range.reason}</p> : null}
        </section>
      ) : null}
      {changes.source_kept ? (
        <div className="columns changes-files">
          <section aria-labelledby="files-title">
            <h2 id="files-title">Files</h2>
            {changes.files.length === 0 ? (
              <Empty>No file changed.</Empty>
            ) : (
              <ul className="changed-files" aria-label="Changed files">
                {changes.files.map((file) => {
                  const stat = file.diff ? diffStat(file.diff) : undefined;
                  return (
                    <li
                      key={file.path}
                      data-change={file.change}
                      aria-current={file.path === shownFile?.path ? 'true' : undefined}
                    >
                      <span className={`file-mark file-${file.change}`} title={file.change}>
                        {MARKS[file.change]}
                      </span>
                      <button type="button" className="link" onClick={() => onSelect(file.path)}>
                        {file.path}
                      </button>
                      {stat ? (
                        <span className="file-stat">
                          +{stat.added} −{stat.removed}
                        </span>
                      ) : null}
                      {file.reason ? <span className="file-reason">{file.reason}</span> : null}
                    </li>
                  );
                })}
              </ul>
            )}
          </section>
          <section aria-labelledby="diff-title">
            <h2 id="diff-title">{shownFile ? shownFile.path : 'Diff'}</h2>
            {shownFile?.diff ? (
              <DiffViewer path={shownFile.path} diff={shownFile.diff} />
            ) : (
              <Empty>{shownFile ? (shownFile.reason ?? 'No diff.') : 'Nothing to show.'}</Empty>
            )}
          </section>
        </div>
      ) : null}
      <div className="columns">
        <ChangeTable
          title="Dependencies"
          headers={['Name', 'From', 'To']}
          rows={changes.dependencies.map((dependency) => [
            dependency.name,
            versionOf(dependency.from, dependency.resolved_from),
            versionOf(dependency.to, dependency.resolved_to),
          ])}
        />
        <ChangeTable
          title="Graphs"
          headers={['Graph', 'Change', 'From', 'To']}
          rows={changes.graphs.map((graph) => [
            graph.graph_id,
            graph.change,
            graph.from ?? '—',
            graph.to ?? '—',
          ])}
        />
        <ChangeTable
          title="Secrets (by name only)"
          headers={['Name', 'Change']}
          rows={changes.secrets.map((secret) => [secret.name, secret.change])}
        />
        <ChangeTable
          title="Settings"
          headers={['Field', 'From', 'To']}
          rows={changes.config.map((entry) => [entry.field, shown(entry.from), shown(entry.to)])}
        />
      </div>
    </>
  );
}

function versionOf(range: string | null, resolved: string | null): string {
  if (range === null) return '—';
  return resolved === null || resolved === range ? range : `${range} (${resolved})`;
}

function ChangeTable({
  title,
  headers,
  rows,
}: {
  readonly title: string;
  readonly headers: readonly string[];
  readonly rows: readonly (readonly string[])[];
}) {
  return (
    <section aria-label={title}>
      <h2>{title}</h2>
      {rows.length === 0 ? (
        <Empty>No changes.</Empty>
      ) : (
        <table className="diff">
          <thead>
            <tr>
              {headers.map((header) => (
                <th key={header} scope="col">
                  {header}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.join('\u0000')}>
                {row.map((cell, at) => (
                  <td key={headers[at]}>
                    <code>{cell}</code>
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
