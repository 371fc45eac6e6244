import { changeLine, changesFrom, type VersionProvenance } from '../domain/version-history';

/** What one version changed from the version it was made from, one change a line. */
export function VersionChanges({ version }: { readonly version: VersionProvenance }) {
  const changes = version.previous_version == null ? [] : (version.changes ?? []);
  return (
    <div className="version-changes">
      <span className="version-changes-from">{changesFrom(version)}</span>
      {changes.length > 0 ? (
        <ul>
          {changes.map((change) => (
            <li key={change.field}>
              <code>{changeLine(change)}</code>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
