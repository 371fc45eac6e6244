import { describe, expect, it } from '@jest/globals';
import { batchDecider } from '#libs/domain';
import {
  clusterAssignmentOf,
  clusterHoldsObjects,
  clusterReportCommands,
  statusPath,
  type ClusterReport,
} from './cluster-listener.js';
import { deploymentDecider } from './deployment.decider.js';
import type { DeploymentEvent } from './deployment.events.js';
import { findRevision, type DeploymentState } from './deployment.state.js';
import {
  createExternal,
  created,
  DEPLOYMENT_ID,
  expectDomainError,
  FIRST_REVISION_ID,
  given,
  LATER,
  patch,
  TENANT_ID,
  then,
} from './testing/deployment-decider.fixtures.js';

const recorder = batchDecider(deploymentDecider);

/** The deployment after the listener's report, as its commands record it. */
function reported(history: DeploymentEvent[], report: ClusterReport): DeploymentEvent[] {
  const commands = clusterReportCommands(given(history), report, LATER);
  return [...history, ...recorder.decide(commands, given(history))];
}

const deployed = (revisionId: string): ClusterReport => ({
  kind: 'revision',
  revision_id: revisionId,
  status: 'DEPLOYED',
  message: null,
});

const statusOf = (state: DeploymentState, revisionId: string) =>
  findRevision(state, revisionId)?.status;

describe('statusPath', () => {
  it('goes the shortest way through the revision status table', () => {
    expect(statusPath('QUEUED', 'DEPLOYED')).toEqual(['AWAITING_DEPLOY', 'DEPLOYING', 'DEPLOYED']);
    expect(statusPath('QUEUED', 'DEPLOY_FAILED')).toEqual(['AWAITING_DEPLOY', 'DEPLOY_FAILED']);
    expect(statusPath('DEPLOYING', 'DEPLOYED')).toEqual(['DEPLOYED']);
    expect(statusPath('DEPLOYED', 'DEPLOYING')).toBeUndefined();
    expect(statusPath('BUILD_FAILED', 'DEPLOYED')).toBeUndefined();
  });
});

describe('a cluster listener and its deployments', () => {
  const history = created(createExternal());

  it('is given the new revision to apply', () => {
    const assignment = clusterAssignmentOf(given(history));
    expect(assignment.action).toBe('apply');
    expect(assignment.action === 'apply' && assignment.revision.revision_id).toBe(
      FIRST_REVISION_ID,
    );
  });

  it('takes a queued revision through AWAITING_DEPLOY and DEPLOYING to DEPLOYED, then live', () => {
    const deploying = reported(history, {
      kind: 'revision',
      revision_id: FIRST_REVISION_ID,
      status: 'DEPLOYING',
      message: null,
    });
    expect(statusOf(given(deploying), FIRST_REVISION_ID)).toBe('DEPLOYING');
    const live = reported(deploying, deployed(FIRST_REVISION_ID));
    const state = given(live);
    expect(statusOf(state, FIRST_REVISION_ID)).toBe('DEPLOYED');
    expect(state.active_revision_id).toBe(FIRST_REVISION_ID);
    // The live revision stays assigned: the listener keeps it applied.
    const assignment = clusterAssignmentOf(state);
    expect(assignment.action === 'apply' && assignment.revision.revision_id).toBe(
      FIRST_REVISION_ID,
    );
  });

  it('records nothing when told again what it recorded (a listener that restarted)', () => {
    const live = reported(history, deployed(FIRST_REVISION_ID));
    expect(clusterReportCommands(given(live), deployed(FIRST_REVISION_ID), LATER)).toEqual([]);
  });

  it('records a failure with its reason, and refuses to take a revision back', () => {
    const failed = reported(history, {
      kind: 'revision',
      revision_id: FIRST_REVISION_ID,
      status: 'DEPLOY_FAILED',
      message: 'agent: the image of container runtime cannot be pulled (ErrImagePull)',
    });
    const revision = findRevision(given(failed), FIRST_REVISION_ID);
    expect(revision?.status).toBe('DEPLOY_FAILED');
    expect(revision?.status_message).toMatch(/cannot be pulled/);
    expectDomainError(
      () => clusterReportCommands(given(failed), deployed(FIRST_REVISION_ID), LATER),
      'conflict',
      /cannot go from DEPLOY_FAILED to DEPLOYED/,
    );
    expectDomainError(
      () => clusterReportCommands(given(failed), deployed('rev-unknown'), LATER),
      'not_found',
      /rev-unknown/,
    );
  });

  it('is given the newest request, and its deployment replaces the older ones', () => {
    const deploying = reported(history, {
      kind: 'revision',
      revision_id: FIRST_REVISION_ID,
      status: 'DEPLOYING',
      message: null,
    });
    const second = patch({ source_revision_config: { image_uri: 'registry.example/agent:2' } });
    const patched = then(deploying, second);
    const assignment = clusterAssignmentOf(given(patched));
    expect(assignment.action === 'apply' && assignment.revision.revision_id).toBe(
      second.revision_id,
    );
    const state = given(reported(patched, deployed(second.revision_id)));
    expect(state.active_revision_id).toBe(second.revision_id);
    // It was deploying: interrupted, since a deploying revision cannot be skipped.
    expect(statusOf(state, FIRST_REVISION_ID)).toBe('INTERRUPTED');
  });

  it('skips an older request that never started', () => {
    const second = patch({ source_revision_config: { image_uri: 'registry.example/agent:2' } });
    const state = given(reported(then(history, second), deployed(second.revision_id)));
    expect(statusOf(state, FIRST_REVISION_ID)).toBe('SKIPPED');
  });

  it('tears a deleted deployment down, and only one being deleted', () => {
    expectDomainError(
      () => clusterReportCommands(given(history), { kind: 'torn_down' }, LATER),
      'conflict',
      /not being deleted/,
    );
    const deleting = then(history, {
      kind: 'delete',
      deployment_id: DEPLOYMENT_ID,
      tenant_id: TENANT_ID,
      now: LATER,
    });
    expect(clusterAssignmentOf(given(deleting))).toEqual({ action: 'tear_down' });
    const gone = given(reported(deleting, { kind: 'torn_down' }));
    expect(gone.deleted).toBe(true);
    expect(clusterAssignmentOf(gone)).toEqual({ action: 'none' });
  });

  it('holds objects in the cluster only once the listener took a revision', () => {
    expect(clusterHoldsObjects(given(history))).toBe(false);
    const taken = reported(history, {
      kind: 'revision',
      revision_id: FIRST_REVISION_ID,
      status: 'DEPLOY_FAILED',
      message: 'crash loop',
    });
    expect(clusterHoldsObjects(given(taken))).toBe(true);
  });
});
