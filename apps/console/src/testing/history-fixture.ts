import type { HistoryEntry } from '../domain/history';

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
          source_tarball_path: 'uploads/a.tgz',
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
