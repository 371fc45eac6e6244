import type { RevisionCreatedData } from './deployment.events.js';
import type { CommitsSince } from './deployment.types.js';
import { unifiedDiff } from './line-diff.js';

/** One file of a revision's source, as read (never followed, never past its caps). */
export type SourceFile = {
  readonly bytes: number;
  /** The SHA-256 of its content (of a link's target for a link), so any change is seen. */
  readonly sha256: string;
  /** Its content, when it is UTF-8 text read whole. */
  readonly text?: string;
  /** Why it has no text: binary, too large, a link (not followed). */
  readonly unread?: string;
};

/** A revision's source as the platform still keeps it, or why it does not. */
export type SourceSnapshot =
  | {
      readonly kept: true;
      readonly files: ReadonlyMap<string, SourceFile>;
      /** Set when the reading stopped at a cap: what was left out. */
      readonly capped?: string;
    }
  | { readonly kept: false; readonly reason: string };

export type ComparedRevision = {
  readonly revision: Pick<
    RevisionCreatedData,
    | 'revision_id'
    | 'source'
    | 'source_revision_config'
    | 'resource_spec'
    | 'source_tarball_sha256'
    | 'created_at'
  >;
  readonly source: SourceSnapshot;
  /** Each secret's name and an opaque fingerprint of its value (equal values, equal prints). */
  readonly secrets: ReadonlyMap<string, string>;
  /** A git revision's commits since the revision before it, as its build listed them. */
  readonly commitsSince?: CommitsSince | null;
};

export type Change = 'added' | 'removed' | 'modified';

export type FileChange = {
  path: string;
  change: Change;
  diff?: string;
  /** Why there is no diff: binary, too large, too many changes, a link. */
  reason?: string;
};
export type DependencyChange = {
  name: string;
  /** `dependencies` or `devDependencies` (of the newer side when both). */
  kind: string;
  from: string | null;
  to: string | null;
  /** The versions the lockfile resolved, where there is one the platform reads. */
  resolved_from: string | null;
  resolved_to: string | null;
};
export type GraphChange = {
  graph_id: string;
  change: Change;
  from: string | null;
  to: string | null;
};
export type SecretChange = { name: string; change: 'added' | 'removed' | 'changed' };
export type ConfigChange = { field: string; from: unknown; to: unknown };
export type CommitRange = {
  from: string | null;
  to: string | null;
  /** Newest first. */
  commits: { sha: string; message: string }[] | null;
  /** The list stops at what a build keeps: older commits of the range are left out. */
  truncated: boolean;
  /** Why the commits are not listed. */
  reason: string | null;
};

export type RevisionChanges = {
  revision_id: string;
  against: string | null;
  /** Whether both sources could be compared; when not, `source_reason` says why. */
  source_kept: boolean;
  source_reason: string | null;
  /** Set when the comparison stopped at a cap: files left out or diffs omitted. */
  capped: string | null;
  files: FileChange[];
  dependencies: DependencyChange[];
  graphs: GraphChange[];
  secrets: SecretChange[];
  config: ConfigChange[];
  commit_range: CommitRange | null;
};

export type ComparisonLimits = {
  /** Files larger than this (either side) are named only. */
  readonly maxDiffFileBytes: number;
  /** Beyond this many lines added or removed, a file is named only. */
  readonly maxDiffEdits: number;
  /** Diffs stop once the answer's diffs reach this many bytes. */
  readonly maxTotalDiffBytes: number;
};

export const COMPARISON_LIMITS: ComparisonLimits = {
  maxDiffFileBytes: 256 * 1024,
  maxDiffEdits: 1_000,
  maxTotalDiffBytes: 2 * 1024 * 1024,
};

const EMPTY_SIDE: SourceSnapshot = { kept: true, files: new Map<string, SourceFile>() };

const COMMITS_NOT_LISTED =
  "the commits are listed between a revision and the one created before it, from the latter's " +
  'commit: compare against that revision';

/**
 * What changed from `against` (the revision it replaced, or any other of the deployment; none
 * for its first revision) to `revision`: files, dependencies, graphs, secrets by name, settings.
 * Secrets are compared by fingerprint and answered by name only.
 */
export function compareRevisions(
  revision: ComparedRevision,
  against: ComparedRevision | undefined,
  limits: ComparisonLimits = COMPARISON_LIMITS,
): RevisionChanges {
  const before = against?.source ?? EMPTY_SIDE;
  const after = revision.source;
  const bothKept = before.kept && after.kept;
  const capped = [before, after].flatMap((side) => (side.kept && side.capped ? [side.capped] : []));
  const files = bothKept ? compareFiles(before.files, after.files, limits) : undefined;
  if (files?.capped) capped.push(files.capped);
  const graphConfigOf = (side: ComparedRevision | undefined) =>
    side?.revision.source_revision_config.graph_config_path ?? 'langgraph.json';
  return {
    revision_id: revision.revision.revision_id,
    against: against?.revision.revision_id ?? null,
    source_kept: bothKept,
    source_reason: bothKept ? null : notKeptReason(revision, against),
    capped: capped.length > 0 ? capped.join('; ') : null,
    files: files?.changes ?? [],
    dependencies: bothKept ? compareDependencies(before.files, after.files) : [],
    graphs: bothKept
      ? compareGraphs(
          graphsOf(before.files.get(graphConfigOf(against))),
          graphsOf(after.files.get(graphConfigOf(revision))),
        )
      : [],
    secrets: compareSecrets(against?.secrets ?? new Map(), revision.secrets),
    config: compareConfig(against, revision),
    commit_range: commitRangeOf(revision, against),
  };
}

function notKeptReason(revision: ComparedRevision, against: ComparedRevision | undefined) {
  const reasons = [against, revision].flatMap((side) =>
    side && !side.source.kept
      ? [`revision ${side.revision.revision_id}: ${side.source.reason}`]
      : [],
  );
  return reasons.join('; ');
}

function compareFiles(
  before: ReadonlyMap<string, SourceFile>,
  after: ReadonlyMap<string, SourceFile>,
  limits: ComparisonLimits,
): { changes: FileChange[]; capped?: string } {
  const paths = [...new Set([...before.keys(), ...after.keys()])].sort();
  const changes: FileChange[] = [];
  let diffBytes = 0;
  let omitted = 0;
  for (const path of paths) {
    const old = before.get(path);
    const now = after.get(path);
    if (old && now && old.sha256 === now.sha256) continue;
    const change: Change = !old ? 'added' : !now ? 'removed' : 'modified';
    const diffed = diffOf(path, old, now, limits);
    if ('diff' in diffed && diffBytes + diffed.diff.length > limits.maxTotalDiffBytes) {
      omitted += 1;
      changes.push({
        path,
        change,
        reason: `the answer's diffs reached ${limits.maxTotalDiffBytes} bytes`,
      });
      continue;
    }
    if ('diff' in diffed) diffBytes += diffed.diff.length;
    changes.push({ path, change, ...diffed });
  }
  return omitted > 0
    ? {
        changes,
        capped: `${omitted} diffs omitted past ${limits.maxTotalDiffBytes} bytes of diffs`,
      }
    : { changes };
}

function diffOf(
  path: string,
  old: SourceFile | undefined,
  now: SourceFile | undefined,
  limits: ComparisonLimits,
): { diff: string } | { reason: string } | Record<string, never> {
  const unread = old?.unread ?? now?.unread;
  if (unread) return { reason: unread };
  const oldText = old ? old.text : '';
  const newText = now ? now.text : '';
  if (oldText === undefined || newText === undefined) return { reason: 'not read' };
  if (Math.max(old?.bytes ?? 0, now?.bytes ?? 0) > limits.maxDiffFileBytes) {
    return { reason: `larger than ${limits.maxDiffFileBytes} bytes: named only` };
  }
  const diff = unifiedDiff(path, oldText, newText, limits.maxDiffEdits);
  if (diff === undefined) {
    return { reason: `more than ${limits.maxDiffEdits} lines changed: named only` };
  }
  return { diff };
}

type Manifest = { dependencies: Map<string, { kind: string; range: string }> };

function manifestOf(file: SourceFile | undefined): Manifest | undefined {
  const parsed = jsonOf(file);
  if (!isRecord(parsed)) return undefined;
  const dependencies = new Map<string, { kind: string; range: string }>();
  for (const kind of ['devDependencies', 'dependencies']) {
    const section = parsed[kind];
    if (!isRecord(section)) continue;
    for (const [name, range] of Object.entries(section)) {
      if (typeof range === 'string') dependencies.set(name, { kind, range });
    }
  }
  return { dependencies };
}

/** The versions package-lock.json resolved for the root's packages (lockfile v1, v2 and v3). */
function resolvedOf(file: SourceFile | undefined): Map<string, string> {
  const parsed = jsonOf(file);
  const resolved = new Map<string, string>();
  if (!isRecord(parsed)) return resolved;
  const { packages, dependencies } = parsed;
  if (isRecord(packages)) {
    for (const [key, entry] of Object.entries(packages)) {
      const name = key.startsWith('node_modules/') ? key.slice('node_modules/'.length) : undefined;
      if (!name || name.includes('/node_modules/') || !isRecord(entry)) continue;
      if (typeof entry.version === 'string') resolved.set(name, entry.version);
    }
  } else if (isRecord(dependencies)) {
    for (const [name, entry] of Object.entries(dependencies)) {
      if (isRecord(entry) && typeof entry.version === 'string') resolved.set(name, entry.version);
    }
  }
  return resolved;
}

function compareDependencies(
  before: ReadonlyMap<string, SourceFile>,
  after: ReadonlyMap<string, SourceFile>,
): DependencyChange[] {
  const oldManifest = manifestOf(before.get('package.json'));
  const newManifest = manifestOf(after.get('package.json'));
  const oldResolved = resolvedOf(before.get('package-lock.json'));
  const newResolved = resolvedOf(after.get('package-lock.json'));
  const oldDeps = oldManifest?.dependencies ?? new Map<string, { kind: string; range: string }>();
  const newDeps = newManifest?.dependencies ?? new Map<string, { kind: string; range: string }>();
  const names = [...new Set([...oldDeps.keys(), ...newDeps.keys()])].sort();
  const changes: DependencyChange[] = [];
  for (const name of names) {
    const old = oldDeps.get(name);
    const now = newDeps.get(name);
    const resolvedFrom = old ? (oldResolved.get(name) ?? null) : null;
    const resolvedTo = now ? (newResolved.get(name) ?? null) : null;
    if (old?.range === now?.range && resolvedFrom === resolvedTo && old?.kind === now?.kind) {
      continue;
    }
    changes.push({
      name,
      kind: (now ?? old)?.kind ?? 'dependencies',
      from: old?.range ?? null,
      to: now?.range ?? null,
      resolved_from: resolvedFrom,
      resolved_to: resolvedTo,
    });
  }
  return changes;
}

/** The graphs a langgraph.json names: id to path (a string, or an object's `path`). */
function graphsOf(file: SourceFile | undefined): Map<string, string> {
  const parsed = jsonOf(file);
  const graphs = new Map<string, string>();
  if (!isRecord(parsed) || !isRecord(parsed.graphs)) return graphs;
  for (const [id, spec] of Object.entries(parsed.graphs)) {
    if (typeof spec === 'string') graphs.set(id, spec);
    else if (isRecord(spec) && typeof spec.path === 'string') graphs.set(id, spec.path);
    else graphs.set(id, JSON.stringify(spec));
  }
  return graphs;
}

function compareGraphs(
  before: ReadonlyMap<string, string>,
  after: ReadonlyMap<string, string>,
): GraphChange[] {
  const ids = [...new Set([...before.keys(), ...after.keys()])].sort();
  return ids.flatMap((graph_id): GraphChange[] => {
    const from = before.get(graph_id) ?? null;
    const to = after.get(graph_id) ?? null;
    if (from === to) return [];
    const change: Change = from === null ? 'added' : to === null ? 'removed' : 'modified';
    return [{ graph_id, change, from, to }];
  });
}

function compareSecrets(
  before: ReadonlyMap<string, string>,
  after: ReadonlyMap<string, string>,
): SecretChange[] {
  const names = [...new Set([...before.keys(), ...after.keys()])].sort();
  return names.flatMap((name): SecretChange[] => {
    const old = before.get(name);
    const now = after.get(name);
    if (old === now) return [];
    if (old === undefined) return [{ name, change: 'added' }];
    if (now === undefined) return [{ name, change: 'removed' }];
    return [{ name, change: 'changed' }];
  });
}

/** The settings a revision carries, each under the name a client sets it by. */
function settingsOf(side: ComparedRevision | undefined): Map<string, unknown> {
  const settings = new Map<string, unknown>();
  if (!side) return settings;
  const { revision } = side;
  settings.set('source', revision.source);
  for (const [field, value] of Object.entries(revision.source_revision_config)) {
    settings.set(`source_revision_config.${field}`, value);
  }
  settings.set('source_tarball_sha256', revision.source_tarball_sha256 ?? null);
  for (const [field, value] of Object.entries(revision.resource_spec ?? {})) {
    settings.set(`resource_spec.${field}`, value);
  }
  return settings;
}

function compareConfig(
  against: ComparedRevision | undefined,
  revision: ComparedRevision,
): ConfigChange[] {
  const before = settingsOf(against);
  const after = settingsOf(revision);
  const fields = [...new Set([...before.keys(), ...after.keys()])].sort();
  return fields.flatMap((field): ConfigChange[] => {
    const from = before.get(field) ?? null;
    const to = after.get(field) ?? null;
    return JSON.stringify(from) === JSON.stringify(to) ? [] : [{ field, from, to }];
  });
}

function commitRangeOf(
  revision: ComparedRevision,
  against: ComparedRevision | undefined,
): CommitRange | null {
  if (revision.revision.source !== 'git_host' && against?.revision.source !== 'git_host') {
    return null;
  }
  const shaOf = (side: ComparedRevision | undefined) =>
    side?.revision.source === 'git_host'
      ? side.revision.source_revision_config.repo_commit_sha
      : null;
  const [from, to] = [shaOf(against), shaOf(revision)];
  const since = revision.commitsSince;
  if (since && from === since.from_sha) {
    return { from, to, commits: since.commits, truncated: since.truncated, reason: since.reason };
  }
  const reason =
    from === null || to === null
      ? 'one of the two revisions has no commit (not built from git, or its build failed first)'
      : since === undefined || since === null
        ? "this revision's build listed no commits (built before commits were kept, or first)"
        : COMMITS_NOT_LISTED;
  return { from, to, commits: null, truncated: false, reason };
}

function jsonOf(file: SourceFile | undefined): unknown {
  if (file?.text === undefined) return undefined;
  try {
    return JSON.parse(file.text) as unknown;
  } catch {
    return undefined;
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
