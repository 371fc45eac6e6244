import type { SchemaObject } from '@nestjs/swagger';
import {
  anyObject,
  AUDIT_EXPORT_SCHEMA,
  AUDIT_VERIFICATION_SCHEMA,
  listOf,
  nullable,
  record,
  timestamp,
  uuid,
} from '#libs/http';
import { DEPLOYMENT_STATUSES, REVISION_STATUSES } from '../deployments/domain/deployment.types.js';

const maskedSecrets: SchemaObject = {
  type: 'array',
  items: record(
    { name: { type: 'string' }, value: { type: 'string', description: 'Always masked' } },
    'A secret, by name.',
  ),
};

const text: SchemaObject = { type: 'string' };
const change: SchemaObject = { type: 'string', enum: ['added', 'removed', 'modified'] };
const itemsOf = (properties: Record<string, SchemaObject>, description: string): SchemaObject => ({
  type: 'array',
  items: record(properties, description),
});

const REVISION_CHANGES_SCHEMA: SchemaObject = record(
  {
    revision_id: uuid,
    against: nullable(uuid),
    source_kept: { type: 'boolean' },
    source_reason: nullable(text),
    capped: nullable(text),
    files: {
      type: 'array',
      items: {
        type: 'object',
        description: 'A file added, removed or modified; a diff for text, else the reason.',
        properties: { path: text, change, diff: text, reason: text },
        required: ['path', 'change'],
      },
    },
    dependencies: itemsOf(
      {
        name: text,
        kind: text,
        from: nullable(text),
        to: nullable(text),
        resolved_from: nullable(text),
        resolved_to: nullable(text),
      },
      'A dependency added, removed or moved (package.json, package-lock.json).',
    ),
    graphs: itemsOf(
      { graph_id: text, change, from: nullable(text), to: nullable(text) },
      'A graph of langgraph.json added, removed or moved.',
    ),
    secrets: itemsOf(
      { name: text, change: { type: 'string', enum: ['added', 'removed', 'changed'] } },
      'A secret, by name only.',
    ),
    config: itemsOf({ field: text, from: {}, to: {} }, 'A setting of the revision.'),
    commit_range: nullable(
      record(
        {
          from: nullable(text),
          to: nullable(text),
          commits: nullable({
            type: 'array',
            items: record({ sha: text, message: text }, 'A commit.'),
          }),
          truncated: { type: 'boolean' },
          reason: nullable(text),
        },
        "A git source's commits.",
      ),
    ),
  },
  'What changed from one revision of a deployment (against) to another.',
);

const cardFields = {
  seq: { type: 'integer', minimum: 0 },
  recorded_at: timestamp,
  revision_id: nullable(uuid),
  events: { type: 'array', items: { type: 'integer', minimum: 0 } },
} satisfies Record<string, SchemaObject>;

const changeCard = record(
  {
    kind: { type: 'string', enum: ['change'] },
    ...cardFields,
    title: { type: 'string' },
    actor: nullable(anyObject),
    secrets_changed: { type: 'array', items: { type: 'string' } },
  },
  'A change a person made (created, patched, redeployed, deleted), with who made it.',
);

const statusWalkCard = record(
  {
    kind: { type: 'string', enum: ['status_walk'] },
    ...cardFields,
    revision_id: uuid,
    status: { type: 'string' },
    settled: { type: 'boolean' },
    activated: { type: 'boolean' },
    phases: {
      type: 'array',
      items: record(
        {
          phase: { type: 'string', enum: ['queued', 'build', 'deploy'] },
          ms: { type: 'number', minimum: 0 },
          outcome: { type: 'string', enum: ['done', 'failed', 'stopped', 'running'] },
        },
        'How long the revision spent in one phase, and how the phase ended.',
      ),
    },
    summary: { type: 'string' },
  },
  "One walk of a revision from queued to its outcome: 'queued 4 ms, built in 25 ms, deployed in 3.1 s'.",
);

const failureCard = record(
  {
    kind: { type: 'string', enum: ['failure'] },
    ...cardFields,
    revision_id: uuid,
    status: { type: 'string' },
    message: nullable({ type: 'string' }),
  },
  'A revision that failed, and why.',
);

function page(item: string, description: string): SchemaObject {
  return record({ resources: listOf(item), offset: { type: 'integer', minimum: 0 } }, description);
}

/** The schemas of the control plane's answers, as the interface describes them. */
export const CONTROL_PLANE_RESPONSE_SCHEMAS: Record<string, SchemaObject> = {
  Deployment: record(
    {
      id: uuid,
      tenant_id: { type: 'string' },
      name: { type: 'string' },
      source: { type: 'string' },
      source_config: anyObject,
      source_revision_config: anyObject,
      secrets: maskedSecrets,
      secret_references: {},
      created_at: timestamp,
      updated_at: timestamp,
      status: { type: 'string', enum: [...DEPLOYMENT_STATUSES] },
      latest_revision_id: nullable(uuid),
      active_revision_id: nullable(uuid),
      image_version: { type: 'null' },
    },
    'A deployment of an agent application.',
  ),
  Revision: record(
    {
      id: uuid,
      deployment_id: uuid,
      created_at: timestamp,
      updated_at: timestamp,
      status: { type: 'string', enum: [...REVISION_STATUSES] },
      status_message: nullable({ type: 'string' }),
      source: { type: 'string' },
      source_revision_config: anyObject,
      resource_spec: nullable(anyObject),
      secrets: maskedSecrets,
      trigger: {},
      active: { type: 'boolean' },
    },
    'One revision of a deployment: what was built and deployed.',
  ),
  DeploymentPage: page('Deployment', 'A page of deployments.'),
  RevisionPage: page('Revision', 'A page of revisions, newest first.'),
  DeploymentHistory: record(
    {
      resources: {
        type: 'array',
        items: record(
          {
            seq: { type: 'integer', minimum: 0 },
            event: { type: 'string' },
            recorded_at: timestamp,
            actor: nullable(anyObject),
            revision_id: nullable(uuid),
            changes: anyObject,
          },
          'One event of the deployment, as recorded.',
        ),
      },
      timeline: { type: 'array', items: { oneOf: [changeCard, statusWalkCard, failureCard] } },
    },
    "The deployment's audit trail, oldest first: its events as recorded, and as cards a person reads (a change a person made, a revision's walk on one line, a failure), each naming its events by seq.",
  ),
  IssuedUpload: record(
    { upload_url: { type: 'string' }, object_path: { type: 'string' }, expires_at: timestamp },
    'Where to PUT the source tarball, until when.',
  ),
  ReceivedUpload: record(
    {
      object_path: { type: 'string' },
      bytes: { type: 'integer', minimum: 0 },
      sha256: { type: 'string' },
    },
    'The tarball as received.',
  ),
  LogPage: record(
    {
      logs: {
        type: 'array',
        items: record(
          {
            id: { type: 'string' },
            timestamp: timestamp,
            level: { type: 'string' },
            message: { type: 'string' },
          },
          'A log line.',
        ),
      },
      next_offset: { type: 'string' },
    },
    'A page of log lines.',
  ),
  Listener: record(
    {
      id: { type: 'string' },
      name: { type: 'string' },
      compute_type: { type: 'string', enum: ['local', 'cluster'] },
      compute_config: anyObject,
      built_in: { type: 'boolean' },
      created_at: timestamp,
      connected: { type: 'boolean', description: 'A cluster listener polled lately.' },
      last_seen_at: nullable(timestamp),
    },
    'Where deployments run.',
  ),
  ListenerPage: page('Listener', 'The listeners.'),
  ListenerAssignments: record(
    {
      listener_id: uuid,
      etag: { type: 'string', description: "The next poll's `after`: it waits for a change." },
      deployments: {
        type: 'array',
        items: record(
          {
            deployment_id: uuid,
            name: { type: 'string' },
            namespace: nullable({ type: 'string' }),
            action: { type: 'string', enum: ['apply', 'tear_down'] },
            revision: nullable(
              record(
                {
                  revision_id: { type: 'string' },
                  status: { type: 'string', enum: [...REVISION_STATUSES] },
                  image_uri: nullable({ type: 'string' }),
                  resource_spec: {},
                  secret_references: {},
                  env: { type: 'object', additionalProperties: { type: 'string' } },
                  sealed_secrets: {
                    type: 'string',
                    description: "The secrets, sealed for the listener's public key.",
                  },
                },
                'The revision to apply.',
              ),
            ),
          },
          'A deployment of the listener, and what to do with it.',
        ),
      },
    },
    'What a cluster listener is to do.',
  ),
  ListenerReport: record(
    {
      deployment_id: uuid,
      revision_id: nullable({ type: 'string' }),
      status: { type: 'string' },
    },
    'Where a deployment stands after a report.',
  ),
  GitHostInstall: { ...anyObject, description: 'How to connect a git host.' },
  GitHostPushed: record(
    {
      revisions: {
        type: 'array',
        items: record(
          { deployment_id: uuid, revision_id: nullable(uuid) },
          'A deployment the push revised.',
        ),
      },
    },
    'The revisions a push started.',
  ),
  TracingProjectPage: page('TracingProject', 'Tracing projects.'),
  TracingProject: { ...anyObject, description: "A deployment's tracing project." },
  TracedRunPage: page('TracedRun', 'Runs recorded in a tracing project.'),
  TracedRun: record(
    {
      run_id: { type: 'string' },
      thread_id: nullable({ type: 'string' }),
      assistant_id: nullable({ type: 'string' }),
      status: { type: 'string' },
      attempt: nullable({ type: 'integer' }),
      created_at: timestamp,
      started_at: nullable(timestamp),
      finished_at: nullable(timestamp),
    },
    'A run as its runtime reported it.',
  ),
  TracesRecorded: record({ recorded: { type: 'integer', minimum: 0 } }, 'How many were recorded.'),
  RevisionLogs: record(
    {
      revision_id: uuid,
      resources: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            timestamp: { type: 'string', format: 'date-time' },
            type: { type: 'string', enum: ['build', 'deploy'] },
            message: { type: 'string' },
          },
          required: ['id', 'timestamp', 'type', 'message'],
        },
      },
    },
    "A revision's log lines (build and deploy).",
  ),
  RevisionChanges: REVISION_CHANGES_SCHEMA,
  ControlPlaneInfo: { ...anyObject, description: 'What this control plane runs on.' },
  AuditVerification: AUDIT_VERIFICATION_SCHEMA,
  AuditExport: AUDIT_EXPORT_SCHEMA,
};
