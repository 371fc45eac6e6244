import { diffValues, shortJson } from '../domain/diff';

type Versioned = {
  readonly version: number;
  readonly context?: unknown;
  readonly metadata?: unknown;
  readonly config?: unknown;
};

/** Two versions of an assistant side by side: what `context`, `metadata` and `config` gained or lost. */
export function VersionDiff({
  before,
  after,
}: {
  readonly before: Versioned;
  readonly after: Versioned;
}) {
  const changes = diffValues(
    { context: before.context ?? {}, metadata: before.metadata ?? {}, config: before.config ?? {} },
    { context: after.context ?? {}, metadata: after.metadata ?? {}, config: after.config ?? {} },
  );
  return (
    <table
      className="diff"
      aria-label={`Changes from version ${before.version} to ${after.version}`}
    >
      <thead>
        <tr>
          <th scope="col">Field</th>
          <th scope="col">Version {before.version}</th>
          <th scope="col">Version {after.version}</th>
        </tr>
      </thead>
      <tbody>
        {changes.length === 0 ? (
          <tr>
            <td colSpan={3}>No differences in context, metadata or config.</td>
          </tr>
        ) : (
          changes.map((change) => (
            <tr key={change.path} className={`diff-${change.kind}`}>
              <th scope="row">
                <code>{change.path}</code>
              </th>
              <td>{change.kind === 'added' ? '—' : <code>{shortJson(change.before)}</code>}</td>
              <td>{change.kind === 'removed' ? '—' : <code>{shortJson(change.after)}</code>}</td>
            </tr>
          ))
        )}
      </tbody>
    </table>
  );
}
