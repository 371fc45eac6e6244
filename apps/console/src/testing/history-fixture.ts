import type { HistoryEntry, TimelineCard } from '../domain/history';

const key = { kind: 'api_key', tenant_id: 't-1', key_id: 'key_0123abcd' };
const listener = { kind: 'listener', listener_id: '6c6f6361-6c00-4000-8000-000000000000' };

let seq = 0;
function entry(
  event: string,
  at: string,
  changes: Record<string, unknown>,
  options: { actor?: Record<string, unknown>; revision?: string } = {},
): HistoryEntry {
  return {
    seq: seq++,
    event,
    recorded_at: at,
    actor: options.actor ?? listener,
    revision_id: options.revision ?? null,
    changes,
  };
}

/** A deployment created, deployed, PATCHed with a new secret and a new config path, redeployed. */
export function deploymentHistory(): HistoryEntry[] {
  seq = 0;
  return [
    entry(
      'DeploymentCreated',
      '2026-11-01T10:00:00.000Z',
      { name: 'shop', source: 'internal_source', secrets: [], tenant_id: 't-1' },
      { actor: key },
    ),
    entry(
      'RevisionCreated',
      '2026-11-01T10:00:01.000Z',
      {
        source: 'internal_source',
        source_revision_config: {
          graph_config_path: 'langgraph.json',
          source_tarball_path: 'uploads/a.tgz',
        },
        resource_spec: null,
        secrets: [],
        secrets_changed: [],
        trigger: 'patch',
        created_at: '2026-11-01T10:00:01.000Z',
      },
      { actor: key, revision: 'rev-1' },
    ),
    entry(
      'RevisionStatusChanged',
      '2026-11-01T10:00:05.000Z',
      { status: 'BUILDING', at: 'x' },
      { revision: 'rev-1' },
    ),
    entry(
      'RevisionStatusChanged',
      '2026-11-01T10:00:09.000Z',
      { status: 'DEPLOYED', at: 'x' },
      { revision: 'rev-1' },
    ),
    entry('RevisionActivated', '2026-11-01T10:00:09.000Z', { at: 'x' }, { revision: 'rev-1' }),
    entry(
      'RevisionCreated',
      '2026-11-02T08:00:00.000Z',
      {
        source: 'internal_source',
        source_revision_config: {
          graph_config_path: 'app/langgraph.json',
          source_tarball_path: 'uploads/b.tgz',
        },
        resource_spec: null,
        secrets: ['OPENAI_API_KEY'],
        secrets_changed: ['OPENAI_API_KEY'],
        trigger: 'patch',
        created_at: '2026-11-02T08:00:00.000Z',
      },
      { actor: key, revision: 'rev-2' },
    ),
    entry(
      'RevisionStatusChanged',
      '2026-11-02T08:00:04.000Z',
      { status: 'BUILD_FAILED', status_message: 'npm ci exited with 1', at: 'x' },
      { revision: 'rev-2' },
    ),
    entry(
      'RevisionRedeployRequested',
      '2026-11-02T09:00:00.000Z',
      {},
      { actor: key, revision: 'rev-1' },
    ),
    entry('RevisionActivated', '2026-11-02T09:00:05.000Z', { at: 'x' }, { revision: 'rev-1' }),
    entry('DeploymentDeleted', '2026-11-03T00:00:00.000Z', { at: 'x' }, {}),
  ];
}

const walk = (
  seq: number,
  at: string,
  revision: string,
  events: number[],
  status: string,
  summary: string,
  activated: boolean,
): TimelineCard => ({
  kind: 'status_walk',
  seq,
  recorded_at: at,
  revision_id: revision,
  events,
  status,
  settled: true,
  activated,
  phases: [],
  summary,
});

const change = (
  seq: number,
  at: string,
  title: string,
  revision: string | null,
  secrets: string[] = [],
): TimelineCard => ({
  kind: 'change',
  seq,
  recorded_at: at,
  revision_id: revision,
  events: [seq],
  title,
  actor: key,
  secrets_changed: secrets,
});

/** The control plane's timeline of `deploymentHistory()`, oldest first. */
export function deploymentTimeline(): TimelineCard[] {
  return [
    change(0, '2026-11-01T10:00:00.000Z', 'Deployment created', null),
    change(1, '2026-11-01T10:00:01.000Z', 'Revision created', 'rev-1'),
    walk(
      1,
      '2026-11-01T10:00:01.000Z',
      'rev-1',
      [2, 3, 4],
      'DEPLOYED',
      'queued 4 s, built in 4 s',
      true,
    ),
    change(5, '2026-11-02T08:00:00.000Z', 'Revision created', 'rev-2', ['OPENAI_API_KEY']),
    walk(
      5,
      '2026-11-02T08:00:00.000Z',
      'rev-2',
      [6],
      'BUILD_FAILED',
      'build failed after 4 s: npm ci exited with 1',
      false,
    ),
    {
      kind: 'failure',
      seq: 6,
      recorded_at: '2026-11-02T08:00:04.000Z',
      revision_id: 'rev-2',
      events: [6],
      status: 'BUILD_FAILED',
      message: 'npm ci exited with 1',
    },
    change(7, '2026-11-02T09:00:00.000Z', 'Redeploy requested', 'rev-1'),
    walk(7, '2026-11-02T09:00:00.000Z', 'rev-1', [8, 9], 'DEPLOYED', 'deployed in 5 s', true),
  ];
}
