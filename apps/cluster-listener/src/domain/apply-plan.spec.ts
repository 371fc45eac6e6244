import { describe, expect, it } from '@jest/globals';
import { resolveResourceSpec } from '#libs/resource-spec';
import { applyPlan, tearDownPlan, type ObservedObject } from './apply-plan.js';
import { baseNameOf } from './kube-names.js';
import { renderRevision } from './render/render-revision.js';
import { plainRevision } from './testing/cluster-revision.fixtures.js';

const revision = plainRevision();
const base = baseNameOf(revision.deploymentName, revision.deploymentId);
const observedOf = (kinds: [string, string][], revisionId = 'old'): ObservedObject[] =>
  kinds.map(([kind, name]) => ({ kind, name, revisionId }));

describe('applyPlan', () => {
  it('applies everything of a first revision, prunes nothing, and waits for both Deployments', () => {
    const rendered = renderRevision(revision);
    const plan = applyPlan(rendered, []);
    expect(plan.apply).toBe(rendered);
    expect(plan.prune).toEqual([]);
    expect(plan.waitFor).toEqual([
      { kind: 'Deployment', name: base },
      { kind: 'Deployment', name: `${base}-queue` },
    ]);
  });

  it('applies a revision again unchanged after a restart: same objects, nothing pruned', () => {
    const rendered = renderRevision(revision);
    const observed = rendered.map((object) => ({
      kind: object.kind,
      name: object.metadata?.name ?? '',
      revisionId: revision.revisionId,
    }));
    const plan = applyPlan(rendered, observed);
    expect(plan.apply.map((object) => object.metadata?.name)).toEqual(
      rendered.map((object) => object.metadata?.name),
    );
    expect(plan.prune).toEqual([]);
  });

  it('prunes what a new revision no longer renders: its autoscalers, its secrets, its database', () => {
    const before = renderRevision(
      plainRevision({
        resources: resolveResourceSpec({ min_scale: 1, max_scale: 4 }),
        secrets: [{ name: 'KEY', value: 'v' }],
      }),
    );
    const after = renderRevision(
      plainRevision({ database: { kind: 'external', url: 'postgres://x@db/x' } }),
    );
    const observed = before.map((object) => ({
      kind: object.kind,
      name: object.metadata?.name ?? '',
      revisionId: 'before',
    }));
    const plan = applyPlan(after, observed);
    expect(plan.prune).toEqual(
      expect.arrayContaining([
        { kind: 'HorizontalPodAutoscaler', name: base },
        { kind: 'HorizontalPodAutoscaler', name: `${base}-queue` },
        { kind: 'Secret', name: `${base}-secrets` },
        { kind: 'StatefulSet', name: `${base}-db` },
        { kind: 'Service', name: `${base}-db` },
        { kind: 'NetworkPolicy', name: `${base}-db` },
      ]),
    );
    expect(plan.prune).toHaveLength(6);
  });

  it('never prunes kinds it does not render (the database volume claims, pods, replica sets)', () => {
    const observed = observedOf([
      ['PersistentVolumeClaim', `data-${base}-db-0`],
      ['Pod', `${base}-abc`],
      ['ReplicaSet', `${base}-5d8f`],
    ]);
    expect(applyPlan(renderRevision(revision), observed).prune).toEqual([]);
  });
});

describe('tearDownPlan', () => {
  it("deletes every object of the kinds Berth renders and the database's volume claims", () => {
    const observed = observedOf([
      ['Deployment', base],
      ['Secret', `${base}-db-credentials`],
      ['PersistentVolumeClaim', `data-${base}-db-0`],
      ['Pod', `${base}-abc`],
      ['ReplicaSet', `${base}-5d8f`],
    ]);
    expect(tearDownPlan(observed)).toEqual([
      { kind: 'Deployment', name: base },
      { kind: 'Secret', name: `${base}-db-credentials` },
      { kind: 'PersistentVolumeClaim', name: `data-${base}-db-0` },
    ]);
  });
});
