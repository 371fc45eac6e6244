import { describe, expect, it } from '@jest/globals';
import { rolloutOutcome, type WorkloadStatus } from './rollout-outcome.js';

function workload(overrides: Partial<WorkloadStatus> = {}): WorkloadStatus {
  return {
    name: 'agent',
    generation: 2,
    observedGeneration: 2,
    replicas: 2,
    updatedReplicas: 2,
    availableReplicas: 2,
    unavailableReplicas: 0,
    conditions: [{ type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable' }],
    waiting: [],
    ...overrides,
  };
}

describe('rolloutOutcome', () => {
  it('is available when every Deployment has its new pods available and the old ones gone', () => {
    expect(rolloutOutcome([workload(), workload({ name: 'agent-queue' })])).toEqual({
      kind: 'available',
    });
  });

  it('is in progress while the controller has not seen the new generation', () => {
    expect(rolloutOutcome([workload({ observedGeneration: 1 })])).toEqual({ kind: 'in_progress' });
  });

  it('is in progress while new pods are not all available, or old ones remain', () => {
    expect(rolloutOutcome([workload({ updatedReplicas: 1 })]).kind).toBe('in_progress');
    expect(rolloutOutcome([workload({ availableReplicas: 1 })]).kind).toBe('in_progress');
    expect(rolloutOutcome([workload({ unavailableReplicas: 1 })]).kind).toBe('in_progress');
    expect(rolloutOutcome([workload(), workload({ name: 'q', updatedReplicas: 0 })]).kind).toBe(
      'in_progress',
    );
  });

  it('fails at once on an image that cannot be pulled, naming the container', () => {
    const outcome = rolloutOutcome([
      workload({
        updatedReplicas: 1,
        waiting: [
          { container: 'runtime', reason: 'ImagePullBackOff', message: 'not found', restarts: 0 },
        ],
      }),
    ]);
    expect(outcome).toEqual({
      kind: 'failed',
      reason:
        'agent: the image of container runtime cannot be pulled (ImagePullBackOff: not found)',
    });
  });

  it('fails on a crash loop only after a few restarts', () => {
    const crashing = (restarts: number) =>
      workload({
        updatedReplicas: 1,
        waiting: [{ container: 'runtime', reason: 'CrashLoopBackOff', restarts }],
      });
    expect(rolloutOutcome([crashing(1)]).kind).toBe('in_progress');
    expect(rolloutOutcome([crashing(3)])).toEqual({
      kind: 'failed',
      reason: 'agent: container runtime keeps crashing (3 restarts)',
    });
  });

  it('fails when the progress deadline passed, with the controller message', () => {
    const outcome = rolloutOutcome([
      workload({
        updatedReplicas: 1,
        conditions: [
          {
            type: 'Progressing',
            status: 'False',
            reason: 'ProgressDeadlineExceeded',
            message: 'ReplicaSet "agent-7f" has timed out progressing.',
          },
        ],
      }),
    ]);
    expect(outcome).toEqual({
      kind: 'failed',
      reason:
        'agent: progress deadline exceeded (ReplicaSet "agent-7f" has timed out progressing.)',
    });
  });

  it('fails when a container cannot be created (a missing secret key)', () => {
    const outcome = rolloutOutcome([
      workload({
        waiting: [
          {
            container: 'runtime',
            reason: 'CreateContainerConfigError',
            message: 'secret "search" not found',
            restarts: 0,
          },
        ],
      }),
    ]);
    expect(outcome).toEqual({
      kind: 'failed',
      reason: 'agent: container runtime cannot be created: secret "search" not found',
    });
  });
});
