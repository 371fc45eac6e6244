import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { gzipSync } from 'node:zlib';
import {
  OTHER_TENANT_KEY,
  startControlPlane,
  TEST_API_KEY,
  TEST_TENANT_ID,
  type ControlPlaneProcess,
} from '../../support/control-plane-process.js';
import { packExample, uploadSource, type Deployment } from '../../support/deployment-flow.js';
import {
  ApiAudit,
  eventually,
  expectDetail,
  ISO_DATE,
  postExternalDeployment,
  postSourceDeployment,
  registerClusterListener,
  SECRET_MASK,
  uniqueName,
  UUID,
  type Json,
  type Page,
} from './api-audit.js';

jest.setTimeout(60_000);

const SECRET_VALUE = 'clear-text-secret-8c2e71';
const ROTATED_VALUE = 'rotated-secret-value-51b0';
const MISSING_ID = '0000aaaa-0000-4000-8000-00000000abcd';

type Revision = {
  id: string;
  status: string;
  status_message: string | null;
  source_revision_config: Json;
  resource_spec: Json | null;
  secrets: { name: string; value: string }[];
} & Json;
type HistoryEntry = {
  seq: number;
  event: string;
  recorded_at: string;
  actor: Json | null;
  revision_id: string | null;
  changes: Json;
};
type Issued = { upload_url: string; object_path: string; expires_at: string };

describe('control plane API over HTTP: revisions, uploads, history, lists, deletion', () => {
  let cp: ControlPlaneProcess;
  let audit: ApiAudit;
  let listenerId: string;

  const api = <T = Json>(method: string, path: string, body?: unknown, key?: string | null) =>
    audit.api<T>(method, path, body, key);
  const createSource = (name: string, extra: Json = {}) => postSourceDeployment(audit, name, extra);
  const createExternal = (name: string, extra: Json = {}) =>
    postExternalDeployment(audit, listenerId, name, extra);
  const revisionsOf = async (id: string, query = '') => {
    const response = await api<Page<Revision>>('GET', `/v2/deployments/${id}/revisions${query}`);
    expect(response.status).toBe(200);
    return response.body;
  };
  const historyOf = async (id: string) => {
    const response = await api<{ resources: HistoryEntry[] }>(
      'GET',
      `/v2/deployments/${id}/history`,
    );
    expect(response.status).toBe(200);
    return response.body.resources;
  };
  const put = (url: string, body: Buffer | string, type = 'application/gzip') =>
    audit.fetch('PUT', url, { headers: { 'content-type': type }, body });

  beforeAll(async () => {
    cp = await startControlPlane();
    audit = new ApiAudit(cp);
    listenerId = await registerClusterListener(audit);
  });

  afterAll(async () => {
    try {
      audit.expectNoServerErrors();
      audit.expectNeverAnswered([SECRET_VALUE, ROTATED_VALUE, TEST_API_KEY]);
    } finally {
      await cp.dispose();
    }
  });

  it('lists the built-in local listener and the registered cluster one', async () => {
    const listeners = await api<Page>('GET', '/v2/listeners');
    expect(listeners.status).toBe(200);
    expect(listeners.body.resources).toEqual([
      expect.objectContaining({ name: 'local', compute_type: 'local', built_in: true }),
      expect.objectContaining({ id: listenerId, name: 'k8s', compute_type: 'cluster' }),
    ]);
    const theirs = await api<Page>('GET', '/v2/listeners', undefined, OTHER_TENANT_KEY);
    expect(theirs.body.resources.map((l) => l.id)).not.toContain(listenerId);
  });

  describe('PATCH of an external_container deployment', () => {
    let deployment: Deployment;
    const revisionIds: string[] = [];
    const patch = async (body: Json): Promise<Deployment> => {
      const response = await api<Deployment>('PATCH', `/v2/deployments/${deployment.id}`, body);
      expect(response.status).toBe(200);
      return response.body;
    };

    beforeAll(async () => {
      deployment = await createExternal(uniqueName('patched'), {
        secrets: [{ name: 'API_TOKEN', value: SECRET_VALUE }],
      });
      revisionIds.push(deployment.latest_revision_id ?? '');
    });

    it('keeps the first revision QUEUED, saying what it waits for', async () => {
      expect(deployment.latest_revision_id).toMatch(UUID);
      const revision = await api<Revision>(
        'GET',
        `/v2/deployments/${deployment.id}/revisions/${revisionIds[0] ?? ''}`,
      );
      expect(revision.status).toBe(200);
      expect(revision.body).toMatchObject({
        id: revisionIds[0],
        deployment_id: deployment.id,
        status: 'QUEUED',
        status_message: expect.stringContaining(listenerId),
        source: 'external_container',
        created_at: expect.stringMatching(ISO_DATE),
        updated_at: expect.stringMatching(ISO_DATE),
        secrets: [{ name: 'API_TOKEN', value: SECRET_MASK }],
      });
    });

    it('makes a new revision for a new image_uri', async () => {
      const patched = await patch({
        source_revision_config: { image_uri: 'registry.example/agent:2' },
      });
      expect(patched.latest_revision_id).toMatch(UUID);
      expect(patched.latest_revision_id).not.toBe(revisionIds[0]);
      expect(patched.source_revision_config.image_uri).toBe('registry.example/agent:2');
      revisionIds.push(patched.latest_revision_id ?? '');
      const page = await revisionsOf(deployment.id);
      expect(page.resources.map((r) => r.id)).toEqual([revisionIds[1], revisionIds[0]]);
      expect(page.offset).toBe(2);
      expect(page.resources[0]?.source_revision_config.image_uri).toBe('registry.example/agent:2');
      expect(page.resources[1]?.source_revision_config.image_uri).toBe('registry.example/agent:1');
    });

    it('changes custom_url without a revision', async () => {
      const patched = await patch({ source_config: { custom_url: 'https://agent.example.com' } });
      expect(patched.latest_revision_id).toBe(revisionIds[1]);
      expect(patched.source_config.custom_url).toBe('https://agent.example.com');
      const read = await api<Deployment>('GET', `/v2/deployments/${deployment.id}`);
      expect(read.body.source_config.custom_url).toBe('https://agent.example.com');
      expect((await revisionsOf(deployment.id)).resources).toHaveLength(2);
      // Nothing given, nothing changed.
      expect((await patch({})).latest_revision_id).toBe(revisionIds[1]);
    });

    it('makes a new revision for a resource_spec, stored resolved', async () => {
      const patched = await patch({ source_config: { resource_spec: { cpu: 0.25 } } });
      expect(patched.latest_revision_id).not.toBe(revisionIds[1]);
      revisionIds.push(patched.latest_revision_id ?? '');
      const resolved = { cpu: 0.3, cpu_limit: 0.6, queue_cpu: 0.3, queue_cpu_limit: 0.6 };
      expect(patched.source_config.resource_spec).toMatchObject(resolved);
      const revision = await api<Revision>(
        'GET',
        `/v2/deployments/${deployment.id}/revisions/${revisionIds[2] ?? ''}`,
      );
      expect(revision.body.resource_spec).toMatchObject({ ...resolved, memory_mb: null });
      const read = await api<Deployment>('GET', `/v2/deployments/${deployment.id}`);
      expect(read.body.source_config.resource_spec).toEqual(revision.body.resource_spec);
      // Still the image of the previous revision.
      expect(revision.body.source_revision_config.image_uri).toBe('registry.example/agent:2');
    });

    it('makes a new revision for new secrets, masked', async () => {
      const patched = await patch({
        secrets: [
          { name: 'API_TOKEN', value: ROTATED_VALUE },
          { name: 'EXTRA', value: SECRET_VALUE },
        ],
      });
      expect(patched.latest_revision_id).not.toBe(revisionIds[2]);
      revisionIds.push(patched.latest_revision_id ?? '');
      expect(patched.secrets).toEqual([
        { name: 'API_TOKEN', value: SECRET_MASK },
        { name: 'EXTRA', value: SECRET_MASK },
      ]);
      const page = await revisionsOf(deployment.id);
      expect(page.resources[0]?.secrets).toEqual(patched.secrets);
      expect(page.resources.every((r) => r.status === 'QUEUED' && r.status_message)).toBe(true);
    });

    it('pages and filters the revisions, newest first', async () => {
      const newestFirst = [...revisionIds].reverse();
      expect((await revisionsOf(deployment.id)).resources.map((r) => r.id)).toEqual(newestFirst);
      expect(await revisionsOf(deployment.id, '?limit=2')).toEqual({
        resources: [
          expect.objectContaining({ id: newestFirst[0] }),
          expect.objectContaining({ id: newestFirst[1] }),
        ],
        offset: 2,
      });
      const rest = await revisionsOf(deployment.id, '?limit=2&offset=2');
      expect(rest.resources.map((r) => r.id)).toEqual(newestFirst.slice(2));
      expect(rest.offset).toBe(4);
      expect(await revisionsOf(deployment.id, '?offset=4')).toEqual({ resources: [], offset: 4 });
      const queued = await revisionsOf(deployment.id, '?status=DEPLOYED,QUEUED');
      expect(queued.resources.map((r) => r.id)).toEqual(newestFirst);
      expect(await revisionsOf(deployment.id, '?status=DEPLOYED,BUILD_FAILED')).toEqual({
        resources: [],
        offset: 0,
      });
      const unknown = await api('GET', `/v2/deployments/${deployment.id}/revisions/${MISSING_ID}`);
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ detail: expect.stringContaining(MISSING_ID) });
    });

    it('records every change in the history, with the actor and without secret values', async () => {
      const history = await historyOf(deployment.id);
      expect(history.map((entry) => entry.event)).toEqual([
        'DeploymentCreated',
        'RevisionCreated',
        'RevisionCreated',
        'DeploymentConfigChanged',
        'RevisionCreated',
        'RevisionCreated',
      ]);
      expect(history.map((entry) => entry.seq)).toEqual([0, 1, 2, 3, 4, 5]);
      for (const entry of history) {
        expect(entry.actor).toEqual({
          kind: 'api_key',
          tenant_id: TEST_TENANT_ID,
          key_id: expect.stringMatching(/^key_[0-9a-f]{12}$/),
        });
        expect(entry.recorded_at).toMatch(ISO_DATE);
      }
      expect(
        history.filter((e) => e.event === 'RevisionCreated').map((e) => e.revision_id),
      ).toEqual(revisionIds);
      expect(history[0]?.revision_id).toBeNull();
      expect(history[0]?.changes).toMatchObject({ name: deployment.name, secrets: ['API_TOKEN'] });
      expect(history[3]?.changes).toMatchObject({
        source_config: { custom_url: 'https://agent.example.com' },
      });
      expect(history[5]?.changes).toMatchObject({
        secrets: ['API_TOKEN', 'EXTRA'],
        secrets_changed: ['API_TOKEN', 'EXTRA'],
        trigger: 'patch',
      });
      const text = JSON.stringify(history);
      for (const value of [SECRET_VALUE, ROTATED_VALUE, TEST_API_KEY]) {
        expect(text).not.toContain(value);
      }
    });
  });

  describe('upload URLs', () => {
    let first: Deployment;
    let second: Deployment;
    let archive: Buffer;

    beforeAll(async () => {
      first = await createSource(uniqueName('upload-a'), {
        secrets: [{ name: 'SOURCE_SECRET', value: SECRET_VALUE }],
      });
      second = await createSource(uniqueName('upload-b'));
      archive = await packExample();
    });

    const issue = async (path: string): Promise<Issued> => {
      const response = await api<Issued>('POST', path);
      expect(response.status).toBe(200);
      return response.body;
    };

    it('are issued at both paths, signed, for this deployment only', async () => {
      for (const path of [
        `/v2/deployments/${first.id}/upload-url`,
        `/deployments/${first.id}/upload-url`,
      ]) {
        const issued = await issue(path);
        expect(Object.keys(issued).sort()).toEqual(['expires_at', 'object_path', 'upload_url']);
        expect(issued.object_path).toMatch(
          new RegExp(`^uploads/${first.id}/[0-9a-f-]{36}\\.tar\\.gz$`),
        );
        expect(issued.upload_url).toContain(issued.object_path);
        expect(issued.upload_url).toMatch(/[?&]signature=[0-9a-f]+/);
        expect(Date.parse(issued.expires_at)).toBeGreaterThan(Date.now());
      }
      const external = await createExternal(uniqueName('no-upload'));
      const refused = await api('POST', `/v2/deployments/${external.id}/upload-url`);
      expectDetail(refused, 400, 'external_container');
    });

    it('accept a gzip PUT with the signature and refuse anything else', async () => {
      const issued = await issue(`/v2/deployments/${first.id}/upload-url`);
      const url = new URL(issued.upload_url);
      const signature = url.searchParams.get('signature') ?? '';
      const tampered = new URL(url);
      tampered.searchParams.set(
        'signature',
        `${signature.startsWith('0') ? '1' : '0'}${signature.slice(1)}`,
      );
      const unsigned = new URL(url);
      unsigned.searchParams.delete('signature');
      const elsewhere = new URL(
        url.toString().replace(issued.object_path.split('/')[2] ?? '', `${MISSING_ID}.tar.gz`),
      );
      const otherDeployment = new URL(url.toString().replace(`/${first.id}/`, `/${second.id}/`));
      for (const refused of [tampered, unsigned, elsewhere, otherDeployment]) {
        const response = await put(refused.toString(), archive);
        expect(response.status).toBe(401);
        expect(response.body).toEqual({ detail: expect.stringMatching(/invalid or has expired/) });
      }
      expectDetail(await put(issued.upload_url, Buffer.from('plain text, no gzip')), 400, 'gzip');
      expectDetail(await put(issued.upload_url, gzipSync('x'), 'text/plain'), 415, 'Content-Type');
      expectDetail(
        await put(issued.upload_url, '{"a": 1}', 'application/json'),
        415,
        'Content-Type',
      );

      const stored = await put(issued.upload_url, archive);
      expect(stored.status).toBe(200);
      expect(stored.body).toMatchObject({ object_path: issued.object_path, bytes: archive.length });
    });

    it('name objects that only their own deployment may use, once uploaded', async () => {
      const uploaded = await uploadSource(cp, first.id, archive);
      const borrowed = await api('PATCH', `/v2/deployments/${second.id}`, {
        source_revision_config: { source_tarball_path: uploaded },
      });
      expectDetail(borrowed, 400, 'was not issued for this deployment');
      const never = await issue(`/deployments/${first.id}/upload-url`);
      const empty = await api('PATCH', `/v2/deployments/${first.id}`, {
        source_revision_config: { source_tarball_path: never.object_path },
      });
      expectDetail(empty, 400, 'nothing was uploaded');
      const noTarball = await api('PATCH', `/v2/deployments/${first.id}`, { secrets: [] });
      expectDetail(noTarball, 400, 'source_revision_config.source_tarball_path is required');
      const unchanged = await api<Deployment>('GET', `/v2/deployments/${first.id}`);
      expect(unchanged.body.latest_revision_id).toBeNull();
      expect((await revisionsOf(first.id)).resources).toEqual([]);

      // Its own upload makes the first revision (not a tarball inside: it will fail to build).
      const own = await uploadSource(cp, second.id, gzipSync('not a tar archive'));
      const patched = await api<Deployment>('PATCH', `/v2/deployments/${second.id}`, {
        source_revision_config: { source_tarball_path: own },
      });
      expect(patched.status).toBe(200);
      expect(patched.body.latest_revision_id).toMatch(UUID);
      expect(patched.body.source_revision_config.source_tarball_path).toBe(own);
      const revisions = await revisionsOf(second.id);
      expect(revisions.resources).toEqual([
        expect.objectContaining({
          id: patched.body.latest_revision_id,
          source: 'internal_source',
          source_revision_config: expect.objectContaining({ source_tarball_path: own }),
        }),
      ]);
      const created = (await historyOf(second.id)).find((e) => e.event === 'RevisionCreated');
      expect(created).toMatchObject({
        revision_id: patched.body.latest_revision_id,
        actor: { kind: 'api_key', tenant_id: TEST_TENANT_ID },
        changes: { trigger: 'patch', source_revision_config: { source_tarball_path: own } },
      });
    });

    it('records the issued uploads and what the listener did in the history', async () => {
      const history = await eventually(
        'the local listener to give the deployment its URL',
        async () => {
          const entries = await historyOf(first.id);
          return entries.some((e) => e.event === 'DeploymentUrlAssigned') ? entries : undefined;
        },
      );
      expect(history.map((entry) => entry.seq)).toEqual(history.map((_, index) => index));
      expect(history[0]).toMatchObject({
        event: 'DeploymentCreated',
        revision_id: null,
        actor: { kind: 'api_key', tenant_id: TEST_TENANT_ID },
        changes: { secrets: ['SOURCE_SECRET'] },
      });
      const issued = history.filter((e) => e.event === 'UploadUrlIssued');
      expect(issued.length).toBeGreaterThanOrEqual(4);
      for (const entry of issued) {
        expect(entry.actor).toMatchObject({
          kind: 'api_key',
          key_id: expect.stringMatching(/^key_/),
        });
        expect(entry.changes).toMatchObject({ object_path: expect.stringMatching(/^uploads\//) });
      }
      const assigned = history.find((e) => e.event === 'DeploymentUrlAssigned');
      expect(assigned?.actor).toMatchObject({ kind: 'listener' });
      expect(assigned?.changes).toMatchObject({ custom_url: expect.stringMatching(/^http:\/\//) });
      const read = await api<Deployment>('GET', `/v2/deployments/${first.id}`);
      expect(read.body.source_config.custom_url).toBe(assigned?.changes.custom_url);
    });
  });

  describe('GET /v2/deployments', () => {
    it('pages newest first and filters by name, status and deployment type', async () => {
      const prefix = uniqueName('Listed');
      const dev = await createSource(`${prefix}-Alpha`, {
        source_config: { deployment_type: 'dev' },
      });
      const prod = await createSource(`${prefix}-beta`, {
        source_config: { deployment_type: 'prod' },
      });
      const ext = await createExternal(`${prefix}-GAMMA`);
      await createSource(uniqueName('unrelated'));
      const query = `name_contains=${encodeURIComponent(prefix.toUpperCase())}`;
      const all = await api<Page<Deployment>>('GET', `/v2/deployments?${query}`);
      expect(all.status).toBe(200);
      expect(all.body).toEqual({ resources: expect.any(Array), offset: 3 });
      expect(all.body.resources.map((d) => d.id)).toEqual([ext.id, prod.id, dev.id]);

      const first = await api<Page<Deployment>>('GET', `/v2/deployments?${query}&limit=2`);
      expect(first.body.resources.map((d) => d.id)).toEqual([ext.id, prod.id]);
      expect(first.body.offset).toBe(2);
      const rest = await api<Page<Deployment>>('GET', `/v2/deployments?${query}&limit=2&offset=2`);
      expect(rest.body).toEqual({
        resources: [expect.objectContaining({ id: dev.id })],
        offset: 3,
      });
      const past = await api<Page<Deployment>>('GET', `/v2/deployments?${query}&offset=10`);
      expect(past.body).toEqual({ resources: [], offset: 10 });

      const byType = await api<Page<Deployment>>(
        'GET',
        `/v2/deployments?${query}&deployment_type=prod`,
      );
      expect(byType.body.resources.map((d) => d.id)).toEqual([prod.id]);
      // Nothing on this machine provisions an external_container deployment: it keeps waiting.
      const waiting = await api<Page<Deployment>>(
        'GET',
        `/v2/deployments?name_contains=${encodeURIComponent(`${prefix}-gamma`)}&status=AWAITING_DATABASE`,
      );
      expect(waiting.body.resources.map((d) => d.id)).toEqual([ext.id]);
      const unused = await api<Page<Deployment>>('GET', `/v2/deployments?${query}&status=UNUSED`);
      expect(unused.body).toEqual({ resources: [], offset: 0 });
      const none = await api<Page<Deployment>>(
        'GET',
        '/v2/deployments?name_contains=no-such-name-zz',
      );
      expect(none.body).toEqual({ resources: [], offset: 0 });
    });

    it('lists whole deployments with secrets masked', async () => {
      const name = uniqueName('listed-secret');
      await createSource(name, { secrets: [{ name: 'LISTED', value: SECRET_VALUE }] });
      const listed = await api<Page<Deployment>>('GET', `/v2/deployments?name_contains=${name}`);
      expect(listed.body.resources).toEqual([
        expect.objectContaining({
          name,
          tenant_id: TEST_TENANT_ID,
          secrets: [{ name: 'LISTED', value: SECRET_MASK }],
          latest_revision_id: null,
        }),
      ]);
    });
  });

  describe('tracing projects', () => {
    it('has a project named after each deployment, for its tenant only', async () => {
      const deployment = await createSource(uniqueName('traced'));
      const projects = await api<Page>('GET', '/v1/tracing-projects?limit=100');
      expect(projects.status).toBe(200);
      const project = projects.body.resources.find((p) => p.deployment_id === deployment.id);
      expect(project).toMatchObject({
        id: expect.stringMatching(UUID),
        name: deployment.name,
        deployment_id: deployment.id,
        run_count: 0,
      });
      const theirs = await api<Page>(
        'GET',
        '/v1/tracing-projects?limit=100',
        undefined,
        OTHER_TENANT_KEY,
      );
      expect(theirs.status).toBe(200);
      expect(theirs.body.resources.map((p) => p.deployment_id)).not.toContain(deployment.id);
      const theirRuns = await api(
        'GET',
        `/v1/tracing-projects/${String(project?.id)}/runs`,
        undefined,
        OTHER_TENANT_KEY,
      );
      expect(theirRuns.status).toBe(404);
      const runs = await api('GET', `/v1/tracing-projects/${String(project?.id)}/runs`);
      expect(runs.body).toEqual({ resources: [], offset: 0 });

      const ingest = `/v1/tracing-projects/${String(project?.id)}/runs`;
      const attempts: Record<string, string>[] = [
        { 'content-type': 'application/json' },
        { 'content-type': 'application/json', authorization: 'Bearer 00ff' },
        { 'content-type': 'application/json', authorization: `Bearer ${TEST_API_KEY}` },
        { 'content-type': 'application/json', 'x-api-key': TEST_API_KEY },
      ];
      // The token first: a body the ingest would refuse (422, 400) tells a caller without it nothing.
      const bodies = [
        JSON.stringify({ runs: [] }),
        JSON.stringify({ runs: 'not a list' }),
        JSON.stringify({ runs: [{ run_id: 'x', status: 'odd' }] }),
        '{"runs": [',
      ];
      for (const headers of attempts) {
        for (const body of bodies) {
          const response = await audit.fetch('POST', ingest, { headers, body });
          expect({ headers, body, status: response.status }).toEqual({
            headers,
            body,
            status: 401,
          });
          expect(response.body).toEqual({ detail: expect.any(String) });
        }
      }
      const notAnId = await audit.fetch('POST', '/v1/tracing-projects/not-a-uuid/runs', {
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(notAnId.status).toBe(401);
    });
  });

  describe('DELETE /v2/deployments/{id}', () => {
    const gone = (id: string) => async () => {
      const response = await api('GET', `/v2/deployments/${id}`);
      return response.status === 404 ? response : undefined;
    };

    it('answers 204, frees the name at once and removes the deployment', async () => {
      const name = uniqueName('deleted');
      const deployment = await createSource(name);
      const deleted = await api('DELETE', `/v2/deployments/${deployment.id}`);
      expect(deleted.status).toBe(204);
      expect(deleted.body).toBeNull();
      const right = await api<Deployment>('GET', `/v2/deployments/${deployment.id}`);
      if (right.status === 200) expect(right.body.status).toBe('AWAITING_DELETE');
      else expect(right.status).toBe(404);

      const reused = await createSource(name);
      expect(reused.id).not.toBe(deployment.id);

      const after = await eventually('the deleted deployment to be gone', gone(deployment.id));
      expect(after.body).toEqual({ detail: `Deployment ${deployment.id} not found` });
      const listed = await api<Page<Deployment>>('GET', `/v2/deployments?name_contains=${name}`);
      expect(listed.body.resources.map((d) => d.id)).toEqual([reused.id]);
      const again = await api('DELETE', `/v2/deployments/${deployment.id}`);
      expect(again.status).toBe(404);
      // The audit history outlives the deployment.
      const history = await api<{ resources: { event: string }[] }>(
        'GET',
        `/v2/deployments/${deployment.id}/history`,
      );
      expect(history.status).toBe(200);
      expect(history.body.resources.map((e) => e.event).slice(-2)).toEqual([
        'DeploymentDeleteRequested',
        'DeploymentDeleted',
      ]);
      const project = (
        await api<Page>('GET', '/v1/tracing-projects?limit=100')
      ).body.resources.find((p) => p.deployment_id === deployment.id);
      expect(project?.deployment_deleted_at).toEqual(expect.any(String));
    });

    it('removes an external_container deployment too', async () => {
      const deployment = await createExternal(uniqueName('deleted-ext'), {
        secrets: [{ name: 'EXT_SECRET', value: SECRET_VALUE }],
      });
      const deleted = await api('DELETE', `/v2/deployments/${deployment.id}`);
      expect(deleted.status).toBe(204);
      const after = await eventually('the external deployment to be gone', gone(deployment.id));
      expect(after.body).toEqual({ detail: `Deployment ${deployment.id} not found` });
      const listed = await api<Page<Deployment>>('GET', '/v2/deployments?limit=100');
      expect(listed.body.resources.map((d) => d.id)).not.toContain(deployment.id);
    });
  });
});
