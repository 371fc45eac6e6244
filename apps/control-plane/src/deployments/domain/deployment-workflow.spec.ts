import { describe, expect, it } from '@jest/globals';
import type { DeploymentEvent } from './deployment.events.js';
import { nextDeploymentStep, type DeploymentFacts } from './deployment-workflow.js';
import type { RevisionStatus } from './deployment.types.js';
import {
  createExternal,
  createGitHost,
  created,
  FIRST_REVISION_ID,
  given,
  LATER,
  patch,
  provisioned,
  PROVISIONED_PORT,
  revisionStatus,
  TENANT_ID,
  then,
} from './testing/deployment-decider.fixtures.js';

const PORT = PROVISIONED_PORT;
const idle: DeploymentFacts = {
  rolling: false,
  portOpen: true,
  activeServing: false,
  activeBuilt: false,
  taken: new Set(),
  now: LATER,
};

const fresh = (): DeploymentEvent[] => created(createGitHost());

function withStatus(history: DeploymentEvent[], ...statuses: RevisionStatus[]): DeploymentEvent[] {
  return [...history, ...statuses.map((status) => revisionStatus(FIRST_REVISION_ID, status))];
}

function deployed(): DeploymentEvent[] {
  const built = withStatus(provisioned(), 'AWAITING_BUILD', 'BUILDING', 'AWAITING_DEPLOY');
  const deploying = withStatus(built, 'DEPLOYING');
  return withStatus(
    then(deploying, { kind: 'activate', revision_id: FIRST_REVISION_ID, now: LATER }),
    'DEPLOYED',
  );
}

const step = (history: DeploymentEvent[], facts: Partial<DeploymentFacts> = {}) =>
  nextDeploymentStep(given(history), { ...idle, ...facts });

describe('the deployment workflow: given its events and its machine, the next step', () => {
  it('rests for a deployment that is not there, is gone, or is not built by Berth', () => {
    expect(step([])).toEqual({ kind: 'rest' });
    expect(step(created(createExternal()))).toEqual({ kind: 'rest' });
    const deleted = then(provisioned(), { kind: 'torn_down', now: LATER });
    expect(step(deleted)).toEqual({ kind: 'rest' });
  });

  it('provisions a new deployment, then opens its port where it is not listening', () => {
    expect(step(fresh())).toEqual({ kind: 'provision' });
    expect(step(provisioned(), { portOpen: false })).toEqual({ kind: 'open_port', port: PORT });
  });

  it('rolls out the requested revision, and rests while a rollout runs', () => {
    const requested = given(provisioned()).revisions[0];
    expect(step(provisioned())).toEqual({ kind: 'roll_out', revision: requested });
    expect(step(provisioned(), { rolling: true })).toEqual({ kind: 'rest' });
  });

  it('skips the older requests, in one step, before rolling out the latest', () => {
    const history = then(
      provisioned(),
      patch({ revision_id: 'rev-new', source_revision_config: { repo_ref: 'next' } }),
    );
    expect(step(history)).toEqual({
      kind: 'skip_superseded',
      commands: [
        {
          kind: 'revision_status',
          revision_id: FIRST_REVISION_ID,
          status: 'SKIPPED',
          message: 'superseded by revision rev-new',
          now: LATER,
        },
      ],
    });
    const skipped = withStatus(history, 'SKIPPED');
    expect(step(skipped)).toMatchObject({ kind: 'roll_out', revision: { revision_id: 'rev-new' } });
  });

  it('starts the live revision again where it is built and not serving, once a pass', () => {
    const active = given(deployed()).revisions[0];
    expect(step(deployed(), { activeBuilt: true })).toEqual({
      kind: 'restart_active',
      revision: active,
    });
    expect(step(deployed(), { activeBuilt: true, activeServing: true })).toEqual({ kind: 'rest' });
    expect(step(deployed(), { activeBuilt: false })).toEqual({ kind: 'rest' });
    const tried = new Set(['restart_active'] as const);
    expect(step(deployed(), { activeBuilt: true, taken: tried })).toEqual({ kind: 'rest' });
  });

  it('after a failed restart, still rolls out what was requested', () => {
    const redeploy = then(deployed(), {
      kind: 'redeploy',
      deployment_id: given(deployed()).deployment_id ?? '',
      tenant_id: TENANT_ID,
      revision_id: FIRST_REVISION_ID,
      now: LATER,
    });
    const tried = new Set(['restart_active'] as const);
    expect(step(redeploy, { activeBuilt: true, taken: tried })).toMatchObject({
      kind: 'roll_out',
      revision: { revision_id: FIRST_REVISION_ID, status: 'QUEUED' },
    });
  });

  it('tears a deleted deployment down, even during a rollout, and never twice in a pass', () => {
    const deleting = then(provisioned(), {
      kind: 'delete',
      deployment_id: given(provisioned()).deployment_id ?? '',
      tenant_id: TENANT_ID,
      now: LATER,
    });
    expect(step(deleting, { rolling: true })).toEqual({ kind: 'tear_down' });
    expect(step(deleting, { taken: new Set(['tear_down']) })).toEqual({ kind: 'rest' });
  });
});
