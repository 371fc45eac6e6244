import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { listenerSealingContext as context } from '#libs/listener-protocol';
import { generateSealingKeys, openSealed, type SealingKeys } from '#libs/sealed-box';
import {
  OTHER_TENANT_KEY,
  restartControlPlane,
  startControlPlane,
  type ControlPlaneProcess,
} from '../../support/control-plane-process.js';
import type { Deployment } from '../../support/deployment-flow.js';
import {
  ApiAudit,
  expectDetail,
  postExternalDeployment,
  uniqueName,
  type Json,
  type Page,
} from './api-audit.js';

jest.setTimeout(90_000);

const SECRET_VALUE = 'sk-cluster-secret-93b1c2';

type Revision = {
  revision_id: string;
  status: string;
  image_uri: string | null;
  resource_spec: Json | null;
  secret_references: Json[];
  env: Record<string, string>;
  sealed_secrets: string;
};
type Assigned = {
  deployment_id: string;
  name: string;
  namespace: string | null;
  action: 'apply' | 'tear_down';
  revision: Revision | null;
};
type Assignments = { listener_id: string; etag: string; deployments: Assigned[] };
type HistoryEntry = { event: string; actor: Json | null; revision_id: string | null };

describe('the cluster listener protocol, over HTTP against a real control plane', () => {
  let cp: ControlPlaneProcess;
  let audit: ApiAudit;
  let keys: SealingKeys;
  let listenerId: string;
  let deployment: Deployment;

  const api = <T = Json>(method: string, path: string, body?: unknown, key?: string | null) =>
    audit.api<T>(method, path, body, key);
  const poll = (query = '', key?: string | null) =>
    api<Assignments>('GET', `/v2/listeners/${listenerId}/assignments${query}`, undefined, key);
  const report = (body: Json, key?: string | null) =>
    api('POST', `/v2/listeners/${listenerId}/reports`, body, key);
  const assignedOf = (assignments: Assignments): Assigned => {
    const found = assignments.deployments.find((d) => d.deployment_id === deployment.id);
    if (!found) throw new Error(`deployment ${deployment.id} is not assigned`);
    return found;
  };
  const historyOf = async (id: string): Promise<HistoryEntry[]> =>
    (await api<{ resources: HistoryEntry[] }>('GET', `/v2/deployments/${id}/history`)).body
      .resources;

  beforeAll(async () => {
    cp = await startControlPlane({ env: { BERTH_PUBLIC_URL: 'https://berth.example' } });
    audit = new ApiAudit(cp);
    keys = generateSealingKeys();
    const registered = await api('POST', '/v2/listeners', {
      name: 'k8s-prod',
      compute_type: 'cluster',
      compute_config: { public_key: keys.publicKey },
    });
    expect(registered.status).toBe(201);
    listenerId = registered.body.id as string;
    deployment = await postExternalDeployment(audit, listenerId, uniqueName('on-cluster'), {
      source_config: {
        listener_id: listenerId,
        listener_config: { cluster_namespace: 'agents' },
        resource_spec: { min_scale: 2, max_scale: 4 },
      },
      secrets: [{ name: 'OPENAI_API_KEY', value: SECRET_VALUE }],
      secret_references: [{ name: 'SEARCH_KEY', secret_name: 'search', secret_key: 'key' }],
    });
  });

  afterAll(async () => {
    try {
      audit.expectNoServerErrors();
      audit.expectNeverAnswered([SECRET_VALUE]);
    } finally {
      await cp.dispose();
    }
  });

  it('refuses a listener whose key secrets cannot be sealed for', async () => {
    const refused = await api('POST', '/v2/listeners', {
      name: 'bad-key',
      compute_type: 'cluster',
      compute_config: { public_key: keys.privateKey },
    });
    expectDetail(refused, 400, 'X25519 public key');
    const keyless = await api('POST', '/v2/listeners', {
      name: 'keyless',
      compute_type: 'cluster',
    });
    expect(keyless.status).toBe(201);
    const polled = await api('GET', `/v2/listeners/${String(keyless.body.id)}/assignments`);
    expectDetail(polled, 409, 'public_key');
  });

  it('shows the listener disconnected until it polls', async () => {
    const listeners = await api<Page>('GET', '/v2/listeners');
    expect(listeners.body.resources.find((listener) => listener.id === listenerId)).toMatchObject({
      connected: false,
      last_seen_at: null,
    });
  });

  it('gives the listener its deployment, the revision to apply, and the secrets sealed for it', async () => {
    const polled = await poll();
    expect(polled.status).toBe(200);
    expect(polled.body.listener_id).toBe(listenerId);
    const assigned = assignedOf(polled.body);
    expect(assigned).toMatchObject({
      name: deployment.name,
      namespace: 'agents',
      action: 'apply',
      revision: {
        revision_id: deployment.latest_revision_id,
        status: 'QUEUED',
        image_uri: 'registry.example/agent:1',
        resource_spec: expect.objectContaining({ min_scale: 2, max_scale: 4 }),
        secret_references: [{ name: 'SEARCH_KEY', secret_name: 'search', secret_key: 'key' }],
      },
    });
    const revision = assigned.revision as Revision;
    expect(revision.env.BERTH_API_KEY_SHA256).toMatch(/^[0-9a-f]{64}/);
    expect(revision.env.BERTH_TRACING_ENDPOINT).toMatch(
      /^https:\/\/berth\.example\/v1\/tracing-projects\/[0-9a-f-]+\/runs$/,
    );
    const opened = JSON.parse(
      openSealed(
        keys.privateKey,
        revision.sealed_secrets,
        context(listenerId, deployment.id, revision.revision_id),
      ),
    ) as { name: string; value: string }[];
    expect(opened.map(({ name }) => name)).toEqual(['OPENAI_API_KEY', 'BERTH_TRACING_TOKEN']);
    expect(opened[0]?.value).toBe(SECRET_VALUE);

    const listeners = await api<Page>('GET', '/v2/listeners');
    expect(listeners.body.resources.find((listener) => listener.id === listenerId)).toMatchObject({
      connected: true,
      last_seen_at: expect.any(String),
    });
  });

  it('answers a waiting poll as soon as a report changes the deployment', async () => {
    const { etag } = (await poll()).body;
    const unchanged = await poll(`?after=${etag}&wait=1`);
    expect(unchanged.body.etag).toBe(etag);

    const waiting = poll(`?after=${etag}&wait=25`);
    const revisionId = deployment.latest_revision_id ?? '';
    const reported = await report({
      deployment_id: deployment.id,
      revision_id: revisionId,
      status: 'DEPLOYING',
    });
    expect(reported.status).toBe(200);
    expect(reported.body).toEqual({
      deployment_id: deployment.id,
      revision_id: revisionId,
      status: 'DEPLOYING',
    });
    const changed = await waiting;
    expect(changed.body.etag).not.toBe(etag);
    expect(assignedOf(changed.body).revision?.status).toBe('DEPLOYING');
  });

  it('records DEPLOYED in the listener name, makes the revision live, and takes a report twice as once', async () => {
    const revisionId = deployment.latest_revision_id ?? '';
    const body = { deployment_id: deployment.id, revision_id: revisionId, status: 'DEPLOYED' };
    expect((await report(body)).body.status).toBe('DEPLOYED');
    const before = await historyOf(deployment.id);
    expect((await report(body)).status).toBe(200);
    expect(await historyOf(deployment.id)).toHaveLength(before.length);

    const read = await api<Deployment>('GET', `/v2/deployments/${deployment.id}`);
    expect(read.body.active_revision_id).toBe(revisionId);
    const byListener = before.filter((entry) => entry.revision_id === revisionId).slice(1);
    expect(byListener.map((entry) => entry.event)).toEqual([
      'RevisionStatusChanged',
      'RevisionStatusChanged',
      'RevisionStatusChanged',
      'RevisionActivated',
    ]);
    for (const entry of byListener) {
      expect(entry.actor).toEqual({ kind: 'listener', listener_id: listenerId });
    }
    expectDetail(await report({ ...body, status: 'DEPLOYING' }), 409, 'cannot go from DEPLOYED');
  });

  it('keeps what it told the listener across a restart of the control plane', async () => {
    const before = (await poll()).body;
    await cp.stop();
    cp = await restartControlPlane(cp);
    audit = new ApiAudit(cp);
    const after = (await poll()).body;
    expect(after.etag).toBe(before.etag);
    expect(assignedOf(after).revision?.status).toBe('DEPLOYED');
  });

  it('answers another tenant, a malformed id and a malformed report with 4xx', async () => {
    expectDetail(await poll('', OTHER_TENANT_KEY), 404, 'not found');
    const body = {
      deployment_id: deployment.id,
      revision_id: deployment.latest_revision_id,
      status: 'DEPLOYED',
    };
    expectDetail(await report(body, OTHER_TENANT_KEY), 404, 'not found');
    expect((await api('GET', '/v2/listeners/not-a-uuid/assignments')).status).toBe(400);
    expect((await report({ deployment_id: deployment.id, status: 'RUNNING' })).status).toBe(422);
    expect((await report({ deployment_id: deployment.id, status: 'DEPLOYED' })).status).toBe(422);
    const unknown = { ...body, deployment_id: '0000aaaa-0000-4000-8000-00000000abcd' };
    expectDetail(await report(unknown), 404, 'not found');
    expect((await poll('?wait=3600')).status).toBe(422);
  });

  it('tears a deleted deployment down, and forgets it once the listener says it is gone', async () => {
    expectDetail(
      await report({ deployment_id: deployment.id, status: 'TORN_DOWN' }),
      409,
      'not being deleted',
    );
    expect((await api('DELETE', `/v2/deployments/${deployment.id}`)).status).toBe(204);
    expect(assignedOf((await poll()).body)).toMatchObject({ action: 'tear_down', revision: null });
    const gone = await report({ deployment_id: deployment.id, status: 'TORN_DOWN' });
    expect(gone.body).toEqual({
      deployment_id: deployment.id,
      revision_id: null,
      status: 'DELETED',
    });
    const after = (await poll()).body;
    expect(after.deployments.some((d) => d.deployment_id === deployment.id)).toBe(false);
  });
});
