import { describe, expect, it } from '@jest/globals';
import { batchDecider } from '#libs/domain';
import { deploymentDecider } from './deployment.decider.js';
import type { DeploymentEvent } from './deployment.events.js';
import type { DeploymentState } from './deployment.state.js';
import type { RevisionStatus } from './deployment.types.js';
import {
  nextRevisionStep,
  outcomeOf,
  type RevisionStep,
  type WorkResult,
} from './revision-workflow.js';
import {
  FIRST_REVISION_ID,
  given,
  LATER,
  patch,
  provisioned,
  revisionStatus,
} from './testing/deployment-decider.fixtures.js';

const REV = FIRST_REVISION_ID;
const recorder = batchDecider(deploymentDecider);
const record = (state: DeploymentState, events: readonly DeploymentEvent[]): DeploymentState =>
  events.reduce((folded, event) => recorder.evolve(folded, event), state);

function queued(...statuses: RevisionStatus[]): DeploymentState {
  return given([...provisioned(), ...statuses.map((status) => revisionStatus(REV, status))]);
}

const status = (to: RevisionStatus, message: string | null = null) => ({
  kind: 'revision_status',
  revision_id: REV,
  status: to,
  message,
  now: LATER,
});

const next = (state: DeploymentState, built: boolean, taken: RevisionStep['kind'][] = []) =>
  nextRevisionStep(state, REV, { built, taken, now: LATER });

/**
 * Drives a whole rollout as the listener does: each step asked for, its work's result given, its
 * outcome recorded through the decider (which refuses any status move the table forbids).
 */
function rollOut(
  start: DeploymentState,
  built: boolean,
  results: Partial<Record<'build' | 'deploy', WorkResult>>,
): { statuses: RevisionStatus[]; steps: RevisionStep['kind'][]; state: DeploymentState } {
  let state = start;
  const steps: RevisionStep['kind'][] = [];
  const statuses: RevisionStatus[] = [];
  for (let guard = 0; guard < 20; guard += 1) {
    const step = next(state, built, steps);
    if (step.kind === 'finish') return { statuses, steps, state };
    steps.push(step.kind);
    const commands =
      step.kind === 'record'
        ? step.commands
        : step.kind === 'build' || step.kind === 'deploy'
          ? outcomeOf(step, results[step.kind] ?? { ok: true }, state, REV, LATER)
          : [];
    const events = recorder.decide(commands, state);
    state = record(state, events);
    for (const event of events) {
      if (event.type === 'RevisionStatusChanged') statuses.push(event.data.status);
    }
  }
  throw new Error('the rollout did not finish in 20 steps');
}

describe("a revision's rollout: given its status and its build, the next step", () => {
  it('builds a queued revision, deploys it, then retires the one it replaced', () => {
    const rollout = rollOut(queued(), false, { build: { ok: true, commitSha: 'abc' } });
    expect(rollout.statuses).toEqual([
      'AWAITING_BUILD',
      'BUILDING',
      'AWAITING_DEPLOY',
      'DEPLOYING',
      'DEPLOYED',
    ]);
    expect(rollout.steps).toEqual(['record', 'build', 'record', 'deploy', 'retire']);
    expect(rollout.state.active_revision_id).toBe(REV);
    expect(rollout.state.revisions[0]?.source_revision_config.repo_commit_sha).toBe('abc');
  });

  it('deploys a kept build without building it again, and says so in the log', () => {
    const step = next(queued(), true);
    expect(step).toEqual({
      kind: 'record',
      commands: [status('AWAITING_DEPLOY')],
      note: {
        phase: 'build',
        line: 'The build of this revision is kept: deploying it without rebuilding',
      },
    });
    expect(rollOut(queued(), true, {}).steps).toEqual(['record', 'record', 'deploy', 'retire']);
  });

  it('records a failed build with its reason and stops there', () => {
    const failed = rollOut(queued(), false, { build: { ok: false, reason: 'npm ci exited 1' } });
    expect(failed.statuses).toEqual(['AWAITING_BUILD', 'BUILDING', 'BUILD_FAILED']);
    expect(failed.state.revisions[0]?.status_message).toBe('npm ci exited 1');
    expect(failed.steps).toEqual(['record', 'build']);
  });

  it('records a failed deploy, and retires nothing', () => {
    const failed = rollOut(queued(), true, { deploy: { ok: false, reason: 'no answer on /ok' } });
    expect(failed.statuses).toEqual(['AWAITING_DEPLOY', 'DEPLOYING', 'DEPLOY_FAILED']);
    expect(failed.state.active_revision_id).toBeNull();
  });

  it('skips a build that a newer request superseded while it ran', () => {
    const building = queued('AWAITING_BUILD', 'BUILDING');
    const superseded = recorder.decide(
      [patch({ revision_id: 'rev-new', source_revision_config: { repo_ref: 'next' } })],
      building,
    );
    const after = record(building, superseded);
    expect(outcomeOf({ kind: 'build' }, { ok: true }, after, REV, LATER)).toEqual([
      status('SKIPPED', 'superseded by revision rev-new'),
    ]);
    expect(outcomeOf({ kind: 'build' }, { ok: true }, building, REV, LATER)).toEqual([
      status('AWAITING_DEPLOY'),
    ]);
  });

  it('begins again what a stopped control plane left half done', () => {
    for (const current of ['AWAITING_BUILD', 'BUILDING'] as const) {
      const line = `the control plane stopped while this revision was ${current}; building it again`;
      const state = current === 'BUILDING' ? queued('AWAITING_BUILD', current) : queued(current);
      expect(next(state, false)).toEqual({
        kind: 'record',
        commands: [status('AWAITING_BUILD', line), status('BUILDING')],
        note: { phase: 'build', line },
      });
      expect(rollOut(state, false, {}).statuses.at(-1)).toBe('DEPLOYED');
    }
    const deploying = queued('AWAITING_BUILD', 'BUILDING', 'AWAITING_DEPLOY', 'DEPLOYING');
    const again = 'the control plane stopped during the deploy; deploying again';
    expect(next(deploying, true)).toEqual({
      kind: 'record',
      commands: [status('AWAITING_DEPLOY', again)],
      note: { phase: 'deploy', line: again },
    });
    expect(rollOut(deploying, true, {}).statuses).toEqual([
      'AWAITING_DEPLOY',
      'DEPLOYING',
      'DEPLOYED',
    ]);
  });

  it('fails a half-done deploy whose build is no longer kept', () => {
    const deploying = queued('AWAITING_BUILD', 'BUILDING', 'AWAITING_DEPLOY', 'DEPLOYING');
    const failed = rollOut(deploying, false, {});
    expect(failed.statuses).toEqual(['DEPLOY_FAILED']);
    expect(failed.state.revisions[0]?.status_message).toBe(
      'its build is no longer kept; redeploy it to build it again',
    );
  });

  it('finishes at once for a revision that is done or unknown', () => {
    expect(next(queued('AWAITING_BUILD', 'BUILD_FAILED'), false)).toEqual({ kind: 'finish' });
    expect(
      nextRevisionStep(queued(), 'rev-unknown', { built: false, taken: [], now: LATER }),
    ).toEqual({
      kind: 'finish',
    });
  });
});
