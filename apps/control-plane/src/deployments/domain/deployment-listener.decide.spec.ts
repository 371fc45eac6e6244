import { describe, expect, it } from '@jest/globals';
import type { DeploymentCommand } from './deployment.commands.js';
import type { DeploymentEvent } from './deployment.events.js';
import type { RevisionStatus } from './deployment.types.js';
import {
  createExternal,
  createGitHost,
  createInternal,
  created,
  decide,
  DEPLOYMENT_ID,
  expectDomainError,
  FIRST_REVISION_ID,
  given,
  LATER,
  LISTENER_ID,
  OTHER_TENANT_ID,
  patch,
  revisionStatus,
  TENANT_ID,
  then,
  types,
  uploadIssued,
} from './testing/deployment-decider.fixtures.js';

const addressed = { deployment_id: DEPLOYMENT_ID, tenant_id: TENANT_ID, now: LATER } as const;
const deleteCommand: DeploymentCommand = { kind: 'delete', ...addressed };
const redeploy = (revisionId = FIRST_REVISION_ID): DeploymentCommand => ({
  kind: 'redeploy',
  ...addressed,
  revision_id: revisionId,
});
const provisioned: DeploymentCommand = {
  kind: 'provisioned',
  custom_url: 'http://127.0.0.1:4100',
  port: 4100,
  database: 'berth_dep_1',
  now: LATER,
};
const toStatus = (status: RevisionStatus, revisionId = FIRST_REVISION_ID): DeploymentCommand => ({
  kind: 'revision_status',
  revision_id: revisionId,
  status,
  message: null,
  now: LATER,
});
const activate = (revisionId: string): DeploymentCommand => ({
  kind: 'activate',
  revision_id: revisionId,
  now: LATER,
});
const tornDown: DeploymentCommand = { kind: 'torn_down', now: LATER };

const gitHost = (): DeploymentEvent[] => created(createGitHost());
const deleted = (): DeploymentEvent[] => then(then(gitHost(), deleteCommand), tornDown);

/** Takes revision rev-1 along the chain up to `status`. */
function reaching(status: RevisionStatus, history = gitHost()): DeploymentEvent[] {
  const chain: RevisionStatus[] = [
    'AWAITING_BUILD',
    'BUILDING',
    'AWAITING_DEPLOY',
    'DEPLOYING',
    'DEPLOYED',
  ];
  if (status === 'QUEUED') return history;
  if (!chain.includes(status)) return [...history, revisionStatus(FIRST_REVISION_ID, status)];
  return chain
    .slice(0, chain.indexOf(status) + 1)
    .reduce((events, next) => then(events, toStatus(next)), history);
}

describe('deployment decider: tenancy', () => {
  const commands: [string, DeploymentCommand][] = [
    ['patch', patch({ source_config: { build_command: 'x' } })],
    ['delete', deleteCommand],
    ['redeploy', redeploy()],
    [
      'issue_upload',
      { kind: 'issue_upload', ...addressed, object_path: 'uploads/x', expires_at: LATER },
    ],
  ];
  const histories: [string, () => DeploymentEvent[]][] = [
    ['missing', () => []],
    ["another tenant's", gitHost],
    ['deleted', deleted],
  ];
  const rows = histories.flatMap(([what, history]) =>
    commands.map(([kind, command]) => [kind, what, history, command] as const),
  );

  it.each(rows)('%s of a %s deployment is 404', (_, what, history, command) => {
    const asTenant: DeploymentCommand =
      what === "another tenant's" && 'tenant_id' in command
        ? { ...command, tenant_id: OTHER_TENANT_ID }
        : command;
    expectDomainError(
      () => decide(asTenant, given(history())),
      'not_found',
      /^Deployment dep-1 not found$/,
    );
  });
});

describe('deployment decider: uploads', () => {
  const issue: DeploymentCommand = {
    kind: 'issue_upload',
    ...addressed,
    object_path: 'uploads/dep-1/a.tgz',
    expires_at: LATER,
  };

  it.each([
    ['internal_source', () => created(createInternal())],
    ['git_host', gitHost],
  ])('issues an upload for %s', (_, history) => {
    expect(decide(issue, given(history()))).toEqual([
      {
        type: 'UploadUrlIssued',
        data: { object_path: 'uploads/dep-1/a.tgz', expires_at: LATER, issued_at: LATER },
      },
    ]);
  });

  it('refuses an upload for external_container', () => {
    expectDomainError(
      () => decide(issue, given(created(createExternal()))),
      'bad_request',
      /^Uploads are only for internal_source deployments, not external_container/,
    );
  });
});

describe('deployment decider: provisioning', () => {
  it('assigns the URL and makes the deployment READY', () => {
    const events = decide(provisioned, given(gitHost()));
    expect(events).toEqual([
      {
        type: 'DeploymentUrlAssigned',
        data: {
          custom_url: 'http://127.0.0.1:4100',
          port: 4100,
          database: 'berth_dep_1',
          at: LATER,
        },
      },
      { type: 'DeploymentStatusChanged', data: { status: 'READY', at: LATER } },
    ]);
    const state = given([...gitHost(), ...events]);
    expect(state).toMatchObject({ status: 'READY', port: 4100, database: 'berth_dep_1' });
    expect(state.source_config.custom_url).toBe('http://127.0.0.1:4100');
  });

  it.each([
    ['already READY', () => then(gitHost(), provisioned)],
    ['AWAITING_DELETE', () => then(gitHost(), deleteCommand)],
    ['deleted', deleted],
    ['missing', () => []],
  ])('does nothing when %s', (_, history) => {
    expect(decide(provisioned, given(history()))).toEqual([]);
  });
});

describe('deployment decider: revision status', () => {
  const chain: [RevisionStatus, RevisionStatus][] = [
    ['QUEUED', 'AWAITING_BUILD'],
    ['AWAITING_BUILD', 'BUILDING'],
    ['BUILDING', 'AWAITING_DEPLOY'],
    ['AWAITING_DEPLOY', 'DEPLOYING'],
    ['DEPLOYING', 'DEPLOYED'],
  ];

  it.each(chain)('moves a revision from %s to %s', (from, to) => {
    const history = reaching(from);
    expect(given(history).revisions[0]?.status).toBe(from);
    const command = { ...toStatus(to), message: 'step' } as DeploymentCommand;
    expect(decide(command, given(history))).toEqual([
      {
        type: 'RevisionStatusChanged',
        data: { revision_id: FIRST_REVISION_ID, status: to, message: 'step', at: LATER },
      },
    ]);
  });

  it('walks the whole chain to DEPLOYED', () => {
    const state = given(reaching('DEPLOYED'));
    expect(state.revisions[0]).toMatchObject({ status: 'DEPLOYED', status_message: null });
  });

  it.each([
    ['QUEUED', 'DEPLOYED'],
    ['QUEUED', 'BUILDING'],
    ['QUEUED', 'DEPLOYING'],
    ['AWAITING_BUILD', 'DEPLOYING'],
    ['AWAITING_BUILD', 'DEPLOYED'],
    ['BUILDING', 'DEPLOYED'],
    ['AWAITING_DEPLOY', 'DEPLOYED'],
    ['DEPLOYED', 'QUEUED'],
    ['DEPLOYED', 'BUILDING'],
    ['BUILD_FAILED', 'BUILDING'],
    ['DEPLOY_FAILED', 'DEPLOYED'],
  ] as [RevisionStatus, RevisionStatus][])('refuses %s → %s (409)', (from, to) => {
    expectDomainError(
      () => decide(toStatus(to), given(reaching(from))),
      'conflict',
      new RegExp(`^Revision rev-1 cannot go from ${from} to ${to}$`),
    );
  });

  it.each(['QUEUED', 'BUILDING', 'DEPLOYED', 'BUILD_FAILED'] as RevisionStatus[])(
    'gives no event for the same status %s',
    (status) => {
      expect(decide(toStatus(status), given(reaching(status)))).toEqual([]);
    },
  );

  it('refuses an unknown revision (404)', () => {
    expectDomainError(
      () => decide(toStatus('BUILDING', 'rev-x'), given(gitHost())),
      'not_found',
      /^Revision rev-x not found$/,
    );
  });

  it('records the resolved commit on the revision and the latest config', () => {
    const commitsSince = {
      from_sha: 'aaa',
      commits: [{ sha: 'abc', message: 'second' }],
      truncated: false,
      reason: null,
    };
    const history = then(gitHost(), {
      kind: 'source_resolved',
      revision_id: FIRST_REVISION_ID,
      repo_commit_sha: 'abc',
      commits_since: commitsSince,
      now: LATER,
    });
    const state = given(history);
    expect(state.revisions[0]?.source_revision_config.repo_commit_sha).toBe('abc');
    expect(state.revisions[0]?.commits_since).toEqual(commitsSince);
    expect(state.source_revision_config.repo_commit_sha).toBe('abc');
  });
});

describe('deployment decider: activation', () => {
  it('activates a revision, naming the previous one', () => {
    const first = then(gitHost(), activate(FIRST_REVISION_ID));
    expect(first.at(-1)).toEqual({
      type: 'RevisionActivated',
      data: { revision_id: FIRST_REVISION_ID, previous_revision_id: null, at: LATER },
    });
    const second = patch({ source_revision_config: { repo_ref: 'develop' } });
    const history = then(then(first, second), activate(second.revision_id));
    expect(history.at(-1)).toEqual({
      type: 'RevisionActivated',
      data: { revision_id: second.revision_id, previous_revision_id: FIRST_REVISION_ID, at: LATER },
    });
    expect(given(history).active_revision_id).toBe(second.revision_id);
  });

  it('gives no event when the revision is already active', () => {
    const history = then(gitHost(), activate(FIRST_REVISION_ID));
    expect(decide(activate(FIRST_REVISION_ID), given(history))).toEqual([]);
  });
});

describe('deployment decider: redeploy', () => {
  it.each([
    'DEPLOYED',
    'BUILD_FAILED',
    'DEPLOY_FAILED',
    'CREATE_FAILED',
    'SKIPPED',
    'INTERRUPTED',
  ] as RevisionStatus[])('redeploys a revision that is %s', (status) => {
    expect(decide(redeploy(), given(reaching(status)))).toEqual([
      { type: 'RevisionRedeployRequested', data: { revision_id: FIRST_REVISION_ID, at: LATER } },
    ]);
  });

  it.each([
    'QUEUED',
    'AWAITING_BUILD',
    'BUILDING',
    'AWAITING_DEPLOY',
    'DEPLOYING',
  ] as RevisionStatus[])('refuses to redeploy a revision that is %s (409)', (status) => {
    expectDomainError(
      () => decide(redeploy(), given(reaching(status))),
      'conflict',
      new RegExp(`^Revision rev-1 is ${status}: it is in progress`),
    );
  });

  it('queues the revision again, after every other revision', () => {
    const second = patch({ source_revision_config: { repo_ref: 'develop' } });
    const history = then(then(reaching('DEPLOYED'), second), redeploy());
    const state = given(history);
    const [first, later] = state.revisions;
    expect(first).toMatchObject({ revision_id: FIRST_REVISION_ID, status: 'QUEUED' });
    expect(later?.revision_id).toBe(second.revision_id);
    expect(first?.requested_at_position).toBeGreaterThan(later?.requested_at_position ?? Infinity);
    expect(first?.requested_at_position).toBe(history.length - 1);
  });

  it('refuses an unknown revision (404)', () => {
    expectDomainError(
      () => decide(redeploy('rev-x'), given(reaching('DEPLOYED'))),
      'not_found',
      /^Revision rev-x not found$/,
    );
  });

  it('refuses while the deployment is being deleted (409)', () => {
    expectDomainError(
      () => decide(redeploy(), given(then(reaching('DEPLOYED'), deleteCommand))),
      'conflict',
      /being deleted/,
    );
  });
});

describe('deployment decider: delete and tear-down', () => {
  it('requests the delete, and a second delete gives no event', () => {
    const history = then(gitHost(), deleteCommand);
    expect(history.at(-1)).toEqual({ type: 'DeploymentDeleteRequested', data: { at: LATER } });
    expect(given(history).status).toBe('AWAITING_DELETE');
    expect(decide(deleteCommand, given(history))).toEqual([]);
  });

  it('marks the deployment deleted when torn down, once', () => {
    const history = then(then(gitHost(), deleteCommand), tornDown);
    expect(history.at(-1)).toEqual({ type: 'DeploymentDeleted', data: { at: LATER } });
    expect(given(history).deleted).toBe(true);
    expect(decide(tornDown, given(history))).toEqual([]);
  });

  it("says why a tear-down failed on the latest revision's status, once per reason", () => {
    const stalled = (message: string): DeploymentCommand => ({
      kind: 'tear_down_failed',
      message,
      now: LATER,
    });
    const asked = then(gitHost(), deleteCommand);
    const history = then(asked, stalled('Deleting the deployment failed: EPERM'));
    expect(history.at(-1)).toEqual({
      type: 'DeploymentDeletionStalled',
      data: {
        revision_id: FIRST_REVISION_ID,
        message: 'Deleting the deployment failed: EPERM',
        at: LATER,
      },
    });
    const state = given(history);
    expect(state.status).toBe('AWAITING_DELETE');
    expect(state.revisions.at(-1)?.status_message).toBe('Deleting the deployment failed: EPERM');
    expect(decide(stalled('Deleting the deployment failed: EPERM'), state)).toEqual([]);
    expect(types(decide(stalled('Deleting the deployment failed: EBUSY'), state))).toEqual([
      'DeploymentDeletionStalled',
    ]);
    expect(decide(stalled('late'), given(then(history, tornDown)))).toEqual([]);
    expect(decide(stalled('not asked'), given(gitHost()))).toEqual([]);
  });
});

describe('deployment decider: evolve', () => {
  it('counts events in version', () => {
    const history = then(then(gitHost(), provisioned), toStatus('AWAITING_BUILD'));
    expect(history).toHaveLength(5);
    expect(given(history).version).toBe(5);
    expect(given([]).version).toBe(0);
  });

  it('follows the latest revision with latest_revision_id and source_revision_config', () => {
    const second = patch({ source_revision_config: { repo_ref: 'develop' } });
    const state = given(then(gitHost(), second));
    expect(state.latest_revision_id).toBe(second.revision_id);
    expect(state.source_revision_config.repo_ref).toBe('develop');
    expect(state.revisions.map((revision) => revision.revision_id)).toEqual([
      FIRST_REVISION_ID,
      second.revision_id,
    ]);
    expect(state.revisions[1]).toMatchObject({ status: 'QUEUED', requested_at_position: 2 });
    expect(state.active_revision_id).toBeNull();
  });

  it('keeps source_config.resource_spec on the latest revision', () => {
    const spec = { listener_id: LISTENER_ID, resource_spec: { cpu: 1 } };
    const history = created(createExternal({ source_config: spec }));
    expect(given(history).source_config.resource_spec?.cpu).toBe(1);
    const withSpec = then(history, patch({ source_config: { resource_spec: { cpu: 3 } } }));
    expect(given(withSpec).source_config.resource_spec?.cpu_limit).toBe(6);
    const withImage = then(withSpec, patch({ source_revision_config: { image_uri: 'img:3' } }));
    expect(given(withImage).source_config.resource_spec?.cpu).toBe(3);
  });

  it('merges a DeploymentConfigChanged into source_config', () => {
    const history = then(gitHost(), patch({ source_config: { build_command: 'make' } }));
    const state = given(history);
    expect(state.source_config).toMatchObject({
      build_command: 'make',
      repo_url: 'https://git.example/a/b',
    });
    expect(state.updated_at).toBe(LATER);
  });

  it('remembers issued uploads', () => {
    const state = given([
      ...created(createInternal()),
      uploadIssued('uploads/a'),
      uploadIssued('uploads/b'),
    ]);
    expect(state.uploads.map((upload) => upload.object_path)).toEqual(['uploads/a', 'uploads/b']);
  });

  it('starts AWAITING_DATABASE with the tenant and created_at', () => {
    const state = given(gitHost());
    expect(state).toMatchObject({
      exists: true,
      deleted: false,
      status: 'AWAITING_DATABASE',
      tenant_id: TENANT_ID,
      latest_revision_id: FIRST_REVISION_ID,
      active_revision_id: null,
    });
    expect(types(gitHost())).toEqual(['DeploymentCreated', 'RevisionCreated']);
  });
});
