import { describe, expect, it } from '@jest/globals';
import type { V1Deployment, V1Pod } from '@kubernetes/client-node';
import { rolloutOutcome } from '../domain/rollout-outcome.js';
import { KubeApiError, kubeApiErrorOf } from './kube-api-error.js';
import { workloadStatusOf } from './workload-status-of.js';

const deployment = (status: V1Deployment['status'], generation = 2): V1Deployment => ({
  metadata: { name: 'support-agent-1a2b3c4d', generation },
  status,
});
const pod = (revisionId: string, status: V1Pod['status']): V1Pod => ({
  metadata: { annotations: { 'berth.dev/revision-id': revisionId } },
  status,
});

describe('workloadStatusOf', () => {
  it('reads the counts, the conditions and the waiting containers of the new pods only', () => {
    const status = workloadStatusOf(
      deployment({
        observedGeneration: 2,
        replicas: 3,
        updatedReplicas: 1,
        availableReplicas: 2,
        unavailableReplicas: 1,
        conditions: [
          { type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated', message: 'going' },
        ],
      }),
      [
        pod('new', {
          initContainerStatuses: [
            {
              name: 'migrate',
              image: 'm',
              imageID: '',
              ready: false,
              restartCount: 0,
              state: { waiting: { reason: 'PodInitializing' } },
            },
          ],
          containerStatuses: [
            {
              name: 'runtime',
              image: 'r',
              imageID: '',
              ready: false,
              restartCount: 4,
              state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 40s' } },
            },
          ],
        }),
        pod('old', {
          containerStatuses: [
            {
              name: 'runtime',
              image: 'r',
              imageID: '',
              ready: false,
              restartCount: 9,
              state: { waiting: { reason: 'ImagePullBackOff' } },
            },
          ],
        }),
      ],
      'new',
    );
    expect(status).toEqual({
      name: 'support-agent-1a2b3c4d',
      generation: 2,
      observedGeneration: 2,
      replicas: 3,
      updatedReplicas: 1,
      availableReplicas: 2,
      unavailableReplicas: 1,
      conditions: [
        { type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated', message: 'going' },
      ],
      waiting: [
        { container: 'migrate', reason: 'PodInitializing', restarts: 0 },
        { container: 'runtime', reason: 'CrashLoopBackOff', message: 'back-off 40s', restarts: 4 },
      ],
    });
    expect(rolloutOutcome([status])).toEqual({
      kind: 'failed',
      reason: 'support-agent-1a2b3c4d: container runtime keeps crashing (4 restarts: back-off 40s)',
    });
  });

  it('reads a Deployment the controller has not looked at yet as not available', () => {
    const status = workloadStatusOf(deployment(undefined), [], 'new');
    expect(status).toMatchObject({ observedGeneration: 0, replicas: 0, waiting: [] });
    expect(rolloutOutcome([status])).toEqual({ kind: 'in_progress' });
  });
});

describe('kubeApiErrorOf', () => {
  it("keeps the API's status and its message, not the response's headers", () => {
    const failure = Object.assign(new Error('HTTP-Code: 403 Headers: {"audit-id":"x"}'), {
      code: 403,
      body: JSON.stringify({
        kind: 'Status',
        message: 'secrets is forbidden: User "x" cannot create',
      }),
    });
    const error = kubeApiErrorOf(failure, 'applying Secret/a');
    expect(error).toBeInstanceOf(KubeApiError);
    expect((error as KubeApiError).message).toBe(
      'applying Secret/a: secrets is forbidden: User "x" cannot create',
    );
    expect((error as KubeApiError).permanent).toBe(true);
  });

  it('counts conflicts, throttling, server errors and no answer as the moment’s', () => {
    for (const code of [409, 429, 500, 503]) {
      const error = kubeApiErrorOf({ code, body: '' }, 'x') as KubeApiError;
      expect(error.permanent).toBe(false);
    }
    const refused = new Error('connect ECONNREFUSED');
    const unreachable = kubeApiErrorOf(refused, 'listing Secrets');
    expect(unreachable).not.toBeInstanceOf(KubeApiError);
    expect(unreachable.message).toBe('listing Secrets: connect ECONNREFUSED');
  });
});
