import type { RevisionChanges } from '#libs/control-plane-client';

const MARKS = { added: '+', removed: '-', modified: '~' } as const;

const json = (value: unknown): string => (value === null ? '-' : JSON.stringify(value));
const orNone = (value: string | null): string => value ?? '(none)';

/** `berth deploy revisions --changes`: what changed in a revision, as a person reads it. */
export function formatChanges(changes: RevisionChanges): string {
  const lines: string[] = [
    `Revision ${changes.revision_id} against ${changes.against ?? "nothing (its deployment's first revision)"}`,
  ];
  const section = (title: string, entries: readonly string[]) => {
    lines.push('', `${title}:`);
    lines.push(...(entries.length === 0 ? ['  (no changes)'] : entries));
  };
  if (!changes.source_kept) lines.push(`Sources not compared: ${changes.source_reason ?? ''}`);
  if (changes.capped) lines.push(`Capped: ${changes.capped}`);
  if (changes.commit_range) {
    const range = changes.commit_range;
    section('Commits', [
      `  ${orNone(range.from)}..${orNone(range.to)}`,
      ...(range.commits ?? []).map((commit) => `  ${commit.sha.slice(0, 12)} ${commit.message}`),
      ...(range.truncated ? ['  (older commits of the range left out)'] : []),
      ...(range.reason ? [`  (${range.reason})`] : []),
    ]);
  }
  if (changes.source_kept) {
    section(
      'Files',
      changes.files.map(
        (file) => `  ${MARKS[file.change]} ${file.path}${file.reason ? `  (${file.reason})` : ''}`,
      ),
    );
    section(
      'Dependencies',
      changes.dependencies.map((dependency) => {
        const from = versionOf(dependency.from, dependency.resolved_from);
        const to = versionOf(dependency.to, dependency.resolved_to);
        return `  ${dependency.name}: ${from} -> ${to}`;
      }),
    );
    section(
      'Graphs',
      changes.graphs.map(
        (graph) =>
          `  ${MARKS[graph.change]} ${graph.graph_id}: ${orNone(graph.from)} -> ${orNone(graph.to)}`,
      ),
    );
  }
  section(
    'Secrets (names only)',
    changes.secrets.map((secret) => `  ${secret.name}: ${secret.change}`),
  );
  section(
    'Settings',
    changes.config.map((entry) => `  ${entry.field}: ${json(entry.from)} -> ${json(entry.to)}`),
  );
  const diffs = changes.files.filter((file) => file.diff !== undefined);
  if (diffs.length > 0) lines.push('', ...diffs.map((file) => (file.diff ?? '').trimEnd()));
  return lines.join('\n');
}

function versionOf(range: string | null, resolved: string | null): string {
  if (range === null) return '(none)';
  return resolved === null || resolved === range ? range : `${range} (${resolved})`;
}
