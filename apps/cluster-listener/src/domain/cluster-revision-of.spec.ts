import { describe, expect, it } from '@jest/globals';
import type { AssignedDeployment, AssignedRevision } from '#libs/listener-protocol';
import {
  clusterRevisionOf,
  namespaceOf,
  revisionSecretsOf,
  type ListenerPlacement,
} from './cluster-revision-of.js';

const placement: ListenerPlacement = {
  namespaces: ['agents', 'staging'],
  ingress: { namespaceLabels: { team: 'edge' }, listenerNamespace: 'berth-system' },
};
const revision: AssignedRevision = {
  revision_id: '0196f1a2-0000-7000-8000-0000000000a1',
  status: 'QUEUED',
  image_uri: 'registry.example/agent:1',
  resource_spec: { min_scale: 2, max_scale: 4 },
  secret_references: [{ name: 'SEARCH_KEY', secret_name: 'search', secret_key: 'key' }],
  env: { BERTH_API_KEY_SHA256: 'ab'.repeat(32) },
  sealed_secrets: 'box',
};
const assigned: AssignedDeployment = {
  deployment_id: '0196f1a2-0000-7000-8000-000000000001',
  name: 'support-agent',
  namespace: 'staging',
  action: 'apply',
  revision,
};
const shape = (changes: Partial<AssignedRevision>) =>
  clusterRevisionOf({
    assigned,
    revision: { ...revision, ...changes },
    namespace: 'staging',
    secrets: [{ name: 'OPENAI_API_KEY', value: 'sk-1' }],
    ingress: placement.ingress,
  });

describe('namespaceOf', () => {
  it("takes the deployment's cluster_namespace when the listener manages it", () => {
    expect(namespaceOf(assigned, placement)).toEqual({ namespace: 'staging' });
  });

  it('puts a deployment naming no namespace in the first one the listener manages', () => {
    expect(namespaceOf({ namespace: null }, placement)).toEqual({ namespace: 'agents' });
  });

  it('refuses a namespace the listener does not manage, naming those it does', () => {
    expect(namespaceOf({ namespace: 'kube-system' }, placement)).toEqual({
      problem: 'namespace "kube-system" is not one this listener manages (agents, staging)',
    });
  });
});

describe('clusterRevisionOf', () => {
  it('reads everything a revision is rendered from out of its assignment', () => {
    const shaped = shape({});
    expect(shaped).toEqual({
      revision: {
        deploymentId: assigned.deployment_id,
        deploymentName: 'support-agent',
        revisionId: revision.revision_id,
        namespace: 'staging',
        image: 'registry.example/agent:1',
        resources: expect.objectContaining({ min_scale: 2, max_scale: 4, cpu: null }),
        env: revision.env,
        secrets: [{ name: 'OPENAI_API_KEY', value: 'sk-1' }],
        secretReferences: revision.secret_references,
        ingress: placement.ingress,
      },
    });
  });

  it('takes a revision with no resource spec and no secret references', () => {
    const shaped = shape({ resource_spec: null, secret_references: null });
    expect(shaped).toMatchObject({ revision: { resources: null, secretReferences: [] } });
  });

  it.each([
    [{ image_uri: null }, 'the revision names no image_uri'],
    [{ secret_references: [{ name: 'X' }] }, 'secret_references is not a list of SecretReference'],
    [{ secret_references: 'X' }, 'secret_references is not a list of SecretReference'],
    [{ resource_spec: [1] }, 'resource_spec is not an object'],
    [
      { resource_spec: { max_scale: 30, queue_max_scale: 30 } },
      'db_max_connections 100 is too few for up to 62 runtime pods',
    ],
  ])('says why it cannot render %j', (changes, problem) => {
    expect(shape(changes)).toEqual({ problem: expect.stringContaining(problem) });
  });
});

describe('revisionSecretsOf', () => {
  it('reads the opened box', () => {
    expect(revisionSecretsOf('[{"name":"A","value":"1"}]')).toEqual([{ name: 'A', value: '1' }]);
    expect(revisionSecretsOf('[]')).toEqual([]);
  });

  it.each(['not json', '{"name":"A"}', '[{"name":"A"}]', '[{"name":"A","value":1}]'])(
    'refuses %s',
    (opened) => {
      expect(revisionSecretsOf(opened)).toBeUndefined();
    },
  );
});
