import { describe, expect, it } from '@jest/globals';
import type { AssignedDeployment } from '#libs/listener-protocol';
import { nextTask, taskOf, type WorkerMemory } from './deployment-task.js';

const applying = (revisionId: string, status: string): AssignedDeployment => ({
  deployment_id: '0196f1a2-0000-7000-8000-000000000001',
  name: 'support-agent',
  namespace: 'agents',
  action: 'apply',
  revision: {
    revision_id: revisionId,
    status,
    image_uri: 'registry.example/support-agent:1',
    resource_spec: null,
    secret_references: [],
    env: {},
    sealed_secrets: 'box',
  },
});
const tearingDown: AssignedDeployment = {
  ...applying('r1', 'DEPLOYED'),
  action: 'tear_down',
  revision: null,
};

describe('taskOf', () => {
  it.each(['QUEUED', 'AWAITING_DEPLOY', 'DEPLOYING'])('rolls out a %s revision', (status) => {
    expect(taskOf(applying('r2', status))).toEqual({ kind: 'roll_out', revisionId: 'r2' });
  });

  it('keeps the live revision applied', () => {
    expect(taskOf(applying('r1', 'DEPLOYED'))).toEqual({ kind: 'keep_applied', revisionId: 'r1' });
  });

  it.each(['DEPLOY_FAILED', 'INTERRUPTED', 'SKIPPED'])(
    'does nothing for a %s revision',
    (status) => {
      expect(taskOf(applying('r2', status))).toBeUndefined();
    },
  );

  it('tears a deleted deployment down', () => {
    expect(taskOf(tearingDown)).toEqual({ kind: 'tear_down' });
  });
});

describe('nextTask', () => {
  const fresh: WorkerMemory = {};

  it('rolls out a requested revision on first sight, also after a restart mid-rollout', () => {
    expect(nextTask(applying('r2', 'AWAITING_DEPLOY'), fresh)).toEqual({
      kind: 'roll_out',
      revisionId: 'r2',
    });
    expect(nextTask(applying('r2', 'DEPLOYING'), fresh)).toEqual({
      kind: 'roll_out',
      revisionId: 'r2',
    });
  });

  it('goes on with a rollout under way when the poll answers again (its own DEPLOYING report)', () => {
    const memory: WorkerMemory = { running: { kind: 'roll_out', revisionId: 'r2' }, applied: 'r2' };
    expect(nextTask(applying('r2', 'DEPLOYING'), memory)).toBeUndefined();
  });

  it('never rolls a revision out again once its outcome was reported', () => {
    const memory: WorkerMemory = {
      finished: { kind: 'roll_out', revisionId: 'r2' },
      applied: 'r2',
    };
    expect(nextTask(applying('r2', 'DEPLOYING'), memory)).toBeUndefined();
  });

  it('gives up a rollout for a newer revision', () => {
    const memory: WorkerMemory = { running: { kind: 'roll_out', revisionId: 'r2' }, applied: 'r2' };
    expect(nextTask(applying('r3', 'QUEUED'), memory)).toEqual({
      kind: 'roll_out',
      revisionId: 'r3',
    });
  });

  it('applies the live revision once after a restart, and not again', () => {
    expect(nextTask(applying('r1', 'DEPLOYED'), fresh)).toEqual({
      kind: 'keep_applied',
      revisionId: 'r1',
    });
    const memory: WorkerMemory = {
      finished: { kind: 'keep_applied', revisionId: 'r1' },
      applied: 'r1',
    };
    expect(nextTask(applying('r1', 'DEPLOYED'), memory)).toBeUndefined();
  });

  it('does not apply a revision it just deployed again when the poll shows it live', () => {
    const memory: WorkerMemory = {
      finished: { kind: 'roll_out', revisionId: 'r2' },
      applied: 'r2',
    };
    expect(nextTask(applying('r2', 'DEPLOYED'), memory)).toBeUndefined();
  });

  it('rolls back to the live revision after a revision failed (the failed one is applied)', () => {
    const memory: WorkerMemory = {
      finished: { kind: 'roll_out', revisionId: 'r2' },
      applied: 'r2',
    };
    expect(nextTask(applying('r1', 'DEPLOYED'), memory)).toEqual({
      kind: 'keep_applied',
      revisionId: 'r1',
    });
  });

  it('applies the live revision again when a requested one was interrupted mid-rollout', () => {
    const memory: WorkerMemory = { running: { kind: 'roll_out', revisionId: 'r2' }, applied: 'r2' };
    expect(nextTask(applying('r1', 'DEPLOYED'), memory)).toEqual({
      kind: 'keep_applied',
      revisionId: 'r1',
    });
  });

  it('tears down once, giving up whatever runs', () => {
    const memory: WorkerMemory = { running: { kind: 'roll_out', revisionId: 'r2' } };
    expect(nextTask(tearingDown, memory)).toEqual({ kind: 'tear_down' });
    expect(nextTask(tearingDown, { running: { kind: 'tear_down' } })).toBeUndefined();
    expect(nextTask(tearingDown, { finished: { kind: 'tear_down' } })).toBeUndefined();
  });

  it('does nothing for a revision that ended, whatever it remembers', () => {
    expect(nextTask(applying('r2', 'DEPLOY_FAILED'), fresh)).toBeUndefined();
  });
});
