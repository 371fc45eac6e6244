import { describe, expect, it } from '@jest/globals';
import { resolveResourceSpec } from '#libs/resource-spec';
import { connectionProblem, connectionsPerPod, runtimePodsAtMost } from './database-connections.js';
import { effectiveResources } from './resource-defaults.js';

const resourcesOf = (spec: Parameters<typeof resolveResourceSpec>[0]) =>
  effectiveResources(resolveResourceSpec(spec));

describe('database connections of runtime pods', () => {
  it('gives the default deployment the runtime’s default pools: 4 pods fit in 100 connections', () => {
    const resources = effectiveResources(null);
    expect(runtimePodsAtMost(resources)).toBe(4);
    expect(connectionsPerPod(resources)).toBe(24);
    expect(connectionProblem(resources)).toBeUndefined();
  });

  it('shares the connections among the most pods autoscaling and a rollout can have', () => {
    const resources = resourcesOf({ min_scale: 2, max_scale: 10, queue_max_scale: 6 });
    expect(runtimePodsAtMost(resources)).toBe(18);
    expect(connectionsPerPod(resources)).toBe(5);
    expect(18 * connectionsPerPod(resources)).toBeLessThanOrEqual(100 - 3);
  });

  it('never gives more than the runtime opens without a budget', () => {
    expect(connectionsPerPod(resourcesOf({ db_max_connections: 1000 }))).toBe(32);
  });

  it('says how many connections a spec needs when it has too few', () => {
    const resources = resourcesOf({ max_scale: 20, queue_max_scale: 20 });
    expect(connectionProblem(resources)).toBe(
      'db_max_connections 100 is too few for up to 42 runtime pods (max_scale and queue_max_scale, and one more of each during a rollout), each needing 5: raise db_max_connections to 213 or lower the scales',
    );
  });
});
