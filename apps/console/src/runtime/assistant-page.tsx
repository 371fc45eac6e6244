import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ErrorDetail, QueryView } from '../components/states';
import { VersionChanges } from '../components/version-changes';
import { VersionDiff } from '../components/version-diff';
import { versionAuthor, type VersionProvenance } from '../domain/version-history';
import { useRuntime } from './runtime-context';

/**
 * An assistant's versions: each with who made it, when, and what it changed from the version it
 * was made from; any two compared side by side; and which one is latest.
 */
export function AssistantPage({ assistantId }: { readonly assistantId: string }) {
  const { client, key } = useRuntime();
  const queries = useQueryClient();
  const assistant = useQuery({
    queryKey: ['runtime', key, 'assistant', assistantId],
    queryFn: ({ signal }) => client.assistants.get(assistantId, { signal }),
  });
  const versions = useQuery({
    queryKey: ['runtime', key, 'assistant', assistantId, 'versions'],
    queryFn: ({ signal }) => client.assistants.getVersions(assistantId, { limit: 100, signal }),
  });
  const [left, setLeft] = useState<number | null>(null);
  const [right, setRight] = useState<number | null>(null);
  const setLatest = useMutation({
    mutationFn: (version: number) => client.assistants.setLatest(assistantId, version),
    onSuccess: () =>
      queries.invalidateQueries({ queryKey: ['runtime', key, 'assistant', assistantId] }),
  });
  return (
    <section>
      <QueryView query={assistant} what="the assistant">
        {(current) => (
          <header className="page-head">
            <h2>{current.name}</h2>
            <span>
              graph <code>{current.graph_id}</code>, latest version{' '}
              <strong>{current.version}</strong>
            </span>
          </header>
        )}
      </QueryView>
      <QueryView query={versions} what="versions">
        {(list) => {
          // Berth's runtime says with each version where it came from (fields the SDK leaves alone).
          const sorted: ((typeof list)[number] & VersionProvenance)[] = [...list].sort(
            (a, b) => a.version - b.version,
          );
          const newest = sorted.at(-1);
          const before = sorted.find((v) => v.version === left) ?? sorted.at(-2) ?? newest;
          const after = sorted.find((v) => v.version === right) ?? newest;
          return (
            <>
              <div className="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Version</th>
                      <th scope="col">Created</th>
                      <th scope="col">By</th>
                      <th scope="col">What changed</th>
                      <th scope="col">Compare</th>
                      <th scope="col">Latest</th>
                    </tr>
                  </thead>
                  <tbody>
                    {sorted.map((version) => (
                      <tr key={version.version}>
                        <th scope="row">{version.version}</th>
                        <td>{new Date(version.created_at).toLocaleString()}</td>
                        <td>{versionAuthor(version.changed_by)}</td>
                        <td>
                          <VersionChanges version={version} />
                        </td>
                        <td>
                          <label>
                            <input
                              type="radio"
                              name="left"
                              checked={before?.version === version.version}
                              onChange={() => setLeft(version.version)}
                            />
                            from
                          </label>{' '}
                          <label>
                            <input
                              type="radio"
                              name="right"
                              checked={after?.version === version.version}
                              onChange={() => setRight(version.version)}
                            />
                            to
                          </label>
                        </td>
                        <td>
                          {!assistant.data ? null : assistant.data.version === version.version ? (
                            <span className="badge badge-good">latest</span>
                          ) : (
                            <button
                              type="button"
                              disabled={setLatest.isPending}
                              onClick={() => setLatest.mutate(version.version)}
                            >
                              Set latest
                            </button>
                          )}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              {setLatest.error ? <ErrorDetail error={setLatest.error} /> : null}
              {before && after ? <VersionDiff before={before} after={after} /> : null}
            </>
          );
        }}
      </QueryView>
    </section>
  );
}
