import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import {
  OTHER_TENANT_ID,
  OTHER_TENANT_KEY,
  startControlPlane,
  TEST_API_KEY,
  TEST_TENANT_ID,
  type ControlPlaneProcess,
} from '../../support/control-plane-process.js';
import type { Deployment } from '../../support/deployment-flow.js';
import {
  ApiAudit,
  expectDetail,
  expectValidationError,
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

const SECRET_VALUE = 'clear-text-secret-4f1d9a';
const MISSING_ID = '0000aaaa-0000-4000-8000-00000000abcd';

describe('control plane API over HTTP: auth, validation, applicability, tenancy', () => {
  let cp: ControlPlaneProcess;
  let audit: ApiAudit;
  let listenerId: string;

  const api = <T = Json>(method: string, path: string, body?: unknown, key?: string | null) =>
    audit.api<T>(method, path, body, key);

  const createSource = (name: string, extra: Json = {}) => postSourceDeployment(audit, name, extra);
  const createExternal = (name: string, extra: Json = {}) =>
    postExternalDeployment(audit, listenerId, name, extra);

  beforeAll(async () => {
    cp = await startControlPlane();
    audit = new ApiAudit(cp);
    listenerId = await registerClusterListener(audit);
  });

  afterAll(async () => {
    try {
      audit.expectNoServerErrors();
      audit.expectNeverAnswered([SECRET_VALUE]);
    } finally {
      await cp.dispose();
    }
  });

  describe('authentication', () => {
    it('answers 401 with a detail without a key or with a wrong one', async () => {
      const missing = await api('GET', '/v2/deployments', undefined, null);
      expect(missing.status).toBe(401);
      expect(missing.body).toEqual({ detail: expect.stringMatching(/api key/i) });
      const wrong = await api('GET', '/v2/deployments', undefined, 'not-a-key');
      expect(wrong.status).toBe(401);
      expect(wrong.body).toEqual({ detail: 'Invalid API key' });
      const wrongWrite = await api('POST', '/v2/deployments', { name: 'x' }, 'not-a-key');
      expect(wrongWrite.status).toBe(401);
    });

    it('accepts the key in X-Api-Key and as a bearer token', async () => {
      const header = await audit.fetch('GET', '/v2/deployments', {
        headers: { 'X-Api-Key': TEST_API_KEY },
      });
      expect(header.status).toBe(200);
      expect(header.body).toEqual({ resources: expect.any(Array), offset: expect.any(Number) });
      const bearer = await audit.fetch('GET', '/v2/deployments', {
        headers: { Authorization: `Bearer ${TEST_API_KEY}` },
      });
      expect(bearer.status).toBe(200);
      const wrongBearer = await audit.fetch('GET', '/v2/deployments', {
        headers: { Authorization: 'Bearer nope' },
      });
      expect(wrongBearer.status).toBe(401);
      expect(wrongBearer.body).toEqual({ detail: 'Invalid API key' });
    });

    it("accepts X-Tenant-Id naming the key's tenant, and refuses another tenant with 403", async () => {
      const own = await audit.fetch('GET', '/v2/deployments', {
        headers: { 'X-Api-Key': TEST_API_KEY, 'X-Tenant-Id': TEST_TENANT_ID.toUpperCase() },
      });
      expect(own.status).toBe(200);
      const other = await audit.fetch('GET', '/v2/deployments', {
        headers: { 'X-Api-Key': TEST_API_KEY, 'X-Tenant-Id': OTHER_TENANT_ID },
      });
      expect(other.status).toBe(403);
      expect(other.body).toEqual({ detail: expect.stringContaining(OTHER_TENANT_ID) });
    });

    it('serves GET /ok without a key', async () => {
      const ok = await api('GET', '/ok', undefined, null);
      expect(ok.status).toBe(200);
    });
  });

  describe('POST /v2/deployments', () => {
    it('answers 201 with the whole deployment, secrets masked', async () => {
      const name = uniqueName('whole');
      const created = await api<Deployment>('POST', '/v2/deployments', {
        name,
        source: 'internal_source',
        source_config: { deployment_type: 'dev', install_command: 'npm ci' },
        source_revision_config: { graph_config_path: 'langgraph.json' },
        secrets: [{ name: 'API_TOKEN', value: SECRET_VALUE }],
      });
      expect(created.status).toBe(201);
      const body = created.body;
      expect(Object.keys(body).sort()).toEqual(
        [
          'active_revision_id',
          'created_at',
          'id',
          'image_version',
          'latest_revision_id',
          'name',
          'secret_references',
          'secrets',
          'source',
          'source_config',
          'source_revision_config',
          'status',
          'tenant_id',
          'updated_at',
        ].sort(),
      );
      expect(body).toMatchObject({
        id: expect.stringMatching(UUID),
        tenant_id: TEST_TENANT_ID,
        name,
        source: 'internal_source',
        secrets: [{ name: 'API_TOKEN', value: SECRET_MASK }],
        secret_references: null,
        created_at: expect.stringMatching(ISO_DATE),
        updated_at: expect.stringMatching(ISO_DATE),
        status: 'AWAITING_DATABASE',
        latest_revision_id: null,
        active_revision_id: null,
      });
      expect(body.source_config).toEqual({
        integration_id: null,
        repo_url: null,
        deployment_type: 'dev',
        build_on_push: null,
        custom_url: null,
        resource_spec: null,
        listener_id: null,
        listener_config: null,
        install_command: 'npm ci',
        build_command: null,
      });
      expect(body.source_revision_config).toEqual({
        repo_ref: null,
        graph_config_path: 'langgraph.json',
        image_uri: null,
        source_tarball_path: null,
        repo_commit_sha: null,
      });
      const read = await api<Deployment>('GET', `/v2/deployments/${body.id}`);
      expect(read.status).toBe(200);
      expect(read.body).toMatchObject({ id: body.id, name, tenant_id: TEST_TENANT_ID });
    });

    it('gives an external_container deployment its first revision at once', async () => {
      const created = await createExternal(uniqueName('first-rev'));
      expect(created.latest_revision_id).toMatch(UUID);
      expect(created.source_config.listener_id).toBe(listenerId);
      const revision = await api(
        'GET',
        `/v2/deployments/${created.id}/revisions/${created.latest_revision_id ?? ''}`,
      );
      expect(revision.status).toBe(200);
      expect(revision.body).toMatchObject({
        id: created.latest_revision_id,
        status: 'QUEUED',
        source: 'external_container',
        source_revision_config: { image_uri: 'registry.example/agent:1' },
      });
    });
  });

  describe('schema violations answer 422 HTTPValidationError', () => {
    const base = {
      name: 'schema',
      source: 'external_container',
      source_revision_config: { image_uri: 'registry.example/agent:1' },
    };
    const withSpec = (spec: Json) => ({
      ...base,
      source_config: { listener_id: MISSING_ID, resource_spec: spec },
    });

    it.each([
      ['a missing name', { source: 'internal_source' }, ['body', 'name']],
      ['an unknown source', { name: 'x', source: 'ftp' }, ['body', 'source']],
      ['a number as name', { name: 5, source: 'internal_source' }, ['body', 'name']],
      ['a string as secrets', { ...base, secrets: 'A=1' }, ['body', 'secrets']],
      [
        'a secret without value',
        { ...base, secrets: [{ name: 'A' }] },
        ['body', 'secrets', 0, 'value'],
      ],
      ['cpu 0.05', withSpec({ cpu: 0.05 }), ['body', 'source_config', 'resource_spec', 'cpu']],
      ['cpu 8.5', withSpec({ cpu: 8.5 }), ['body', 'source_config', 'resource_spec', 'cpu']],
      [
        'cpu_limit 17',
        withSpec({ cpu_limit: 17 }),
        ['body', 'source_config', 'resource_spec', 'cpu_limit'],
      ],
      [
        'a resource_spec that is an array',
        withSpec([] as unknown as Json),
        ['body', 'source_config', 'resource_spec'],
      ],
      [
        'a non-uuid listener_id',
        { ...base, source_config: { listener_id: 'k8s' } },
        ['body', 'source_config', 'listener_id'],
      ],
    ])('%s', async (_label, body, loc) => {
      expectValidationError(await api('POST', '/v2/deployments', body), loc);
    });

    it('names every location at once', async () => {
      const response = await api('POST', '/v2/deployments', {
        name: 7,
        source: 'nope',
        source_config: { resource_spec: { cpu: 9, cpu_limit: 0 } },
      });
      expectValidationError(
        response,
        ['body', 'name'],
        ['body', 'source'],
        ['body', 'source_config', 'resource_spec', 'cpu'],
        ['body', 'source_config', 'resource_spec', 'cpu_limit'],
      );
    });

    it('checks query parameters of the list', async () => {
      expectValidationError(await api('GET', '/v2/deployments?limit=0'), ['query', 'limit']);
      expectValidationError(await api('GET', '/v2/deployments?limit=101'), ['query', 'limit']);
      expectValidationError(await api('GET', '/v2/deployments?offset=-1'), ['query', 'offset']);
      expectValidationError(await api('GET', '/v2/deployments?status=GONE'), ['query', 'status']);
      expectValidationError(await api('GET', '/v2/deployments?deployment_type=big'), [
        'query',
        'deployment_type',
      ]);
    });

    it('checks the revision status filter', async () => {
      const { id } = await createExternal(uniqueName('status-filter'));
      for (const status of ['FOO', 'QUEUED,FOO', 'queued', 'QUEUED,,DEPLOYED']) {
        expectValidationError(
          await api('GET', `/v2/deployments/${id}/revisions?status=${status}`),
          ['query', 'status'],
        );
      }
    });

    it('answers a non-uuid id in the path with a JSON client error, never a 500', async () => {
      for (const [method, path] of [
        ['GET', '/v2/deployments/not-a-uuid'],
        ['PATCH', '/v2/deployments/not-a-uuid'],
        ['DELETE', '/v2/deployments/not-a-uuid'],
        ['GET', '/v2/deployments/not-a-uuid/revisions'],
        ['GET', '/v2/deployments/not-a-uuid/history'],
        ['POST', '/v2/deployments/not-a-uuid/upload-url'],
        ['GET', `/v2/deployments/${MISSING_ID}/revisions/not-a-uuid`],
      ] as const) {
        const response = await api(method, path, method === 'PATCH' ? {} : undefined);
        expect({ method, path, status: response.status }).toEqual({ method, path, status: 400 });
        expect(response.body).toEqual({ detail: expect.stringMatching(/uuid/) });
      }
    });

    it('refuses a known field given in the wrong object, naming where it belongs', async () => {
      const created = await api('POST', '/v2/deployments', {
        name: uniqueName('misplaced'),
        source: 'internal_source',
        source_config: { deployment_type: 'dev' },
        source_revision_config: { graph_config_path: 'langgraph.json', build_command: 'make' },
      });
      expectValidationError(created, ['body', 'source_revision_config', 'build_command']);
      expect(JSON.stringify(created.body)).toContain('it is a field of `source_config`');
      expectValidationError(
        await api('POST', '/v2/deployments', {
          name: uniqueName('misplaced'),
          source: 'internal_source',
          install_command: 'npm ci',
          source_config: { resource_spec: { labels: { a: 'b' } }, secrets: [] },
        }),
        ['body', 'install_command'],
        ['body', 'source_config', 'secrets'],
      );
      const { id } = await createSource(uniqueName('misplaced-patch'));
      const patched = await api('PATCH', `/v2/deployments/${id}`, {
        source_config: { graph_config_path: 'langgraph.json' },
        source_revision_config: { install_command: 'npm ci' },
      });
      expectValidationError(
        patched,
        ['body', 'source_config', 'graph_config_path'],
        ['body', 'source_revision_config', 'install_command'],
      );
    });

    it.each(['../../etc/passwd', 'a/b', '..', 'tab\there'])(
      'refuses the name %j on create and in a PATCH with a 422',
      async (name) => {
        const created = await api('POST', '/v2/deployments', {
          name,
          source: 'internal_source',
          source_config: { deployment_type: 'dev' },
        });
        expect(created.status).toBe(422);
        expect(created.body).toEqual({ detail: expect.anything() });
        expect(JSON.stringify(created.body.detail)).toMatch(/name/);
        const { id } = await createSource(uniqueName('named'));
        const patched = await api('PATCH', `/v2/deployments/${id}`, { name });
        expect(patched.status).toBe(422);
        expect(JSON.stringify(patched.body.detail)).toMatch(/name/);
      },
    );

    it('answers unparsable JSON with 400 and a detail', async () => {
      const response = await audit.fetch('POST', '/v2/deployments', {
        headers: { 'x-api-key': TEST_API_KEY, 'content-type': 'application/json' },
        body: '{"name": "half',
      });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ detail: expect.stringMatching(/JSON/) });
    });
  });

  describe('field applicability answers 400 naming the field', () => {
    it.each([
      [
        'repo_url on internal_source',
        { source_config: { repo_url: 'https://example.invalid/a.git' } },
        'source_config.repo_url',
      ],
      [
        'custom_url on internal_source',
        { source_config: { custom_url: 'https://agent.example' } },
        'source_config.custom_url',
      ],
      [
        'resource_spec on internal_source',
        { source_config: { resource_spec: { cpu: 1 } } },
        'source_config.resource_spec',
      ],
      [
        'source_tarball_path on create',
        {
          source_revision_config: {
            graph_config_path: 'langgraph.json',
            source_tarball_path: 'uploads/x/y.tar.gz',
          },
        },
        'source_revision_config.source_tarball_path',
      ],
      [
        'secret_references on internal_source',
        { secret_references: [{ name: 'A', secret_name: 'b', secret_key: 'c' }] },
        'secret_references',
      ],
    ])('%s', async (_label, extra, field) => {
      const response = await api('POST', '/v2/deployments', {
        name: uniqueName('applicability'),
        source: 'internal_source',
        source_revision_config: { graph_config_path: 'langgraph.json' },
        ...extra,
      });
      expectDetail(response, 400, field);
    });

    it('refuses graph_config_path on external_container and the local listener for images', async () => {
      const graph = await api('POST', '/v2/deployments', {
        name: uniqueName('ext-graph'),
        source: 'external_container',
        source_config: { listener_id: listenerId },
        source_revision_config: { image_uri: 'registry.example/a:1', graph_config_path: 'l.json' },
      });
      expectDetail(graph, 400, 'source_revision_config.graph_config_path');
      const listeners = await api<Page>('GET', '/v2/listeners');
      const local = listeners.body.resources.find((listener) => listener.name === 'local');
      const onLocal = await api('POST', '/v2/deployments', {
        name: uniqueName('ext-local'),
        source: 'external_container',
        source_config: { listener_id: local?.id },
        source_revision_config: { image_uri: 'registry.example/a:1' },
      });
      expectDetail(onLocal, 400, 'source_config.listener_id');
      const unknown = await api('POST', '/v2/deployments', {
        name: uniqueName('ext-unknown'),
        source: 'external_container',
        source_config: { listener_id: MISSING_ID },
        source_revision_config: { image_uri: 'registry.example/a:1' },
      });
      expectDetail(unknown, 400, `source_config.listener_id ${MISSING_ID}`);
    });

    it('refuses build_on_push with a tag on git_host, and internal_container', async () => {
      const install = await api('GET', '/v1/integrations/git_host/install');
      expect(install.status).toBe(200);
      expect(install.body.integration_id).toMatch(UUID);
      const tagged = await api('POST', '/v2/deployments', {
        name: uniqueName('tagged'),
        source: 'git_host',
        source_config: {
          integration_id: install.body.integration_id,
          repo_url: 'https://example.invalid/agent.git',
          build_on_push: true,
        },
        source_revision_config: {
          repo_ref: 'refs/tags/v1.0.0',
          graph_config_path: 'langgraph.json',
        },
      });
      expectDetail(tagged, 400, 'source_config.build_on_push');
      const container = await api('POST', '/v2/deployments', {
        name: uniqueName('internal-container'),
        source: 'internal_container',
      });
      expectDetail(container, 400, 'internal_container');
    });

    it('refuses an arbitrary source_tarball_path and immutable fields in a PATCH', async () => {
      const source = await createSource(uniqueName('immutable'), {
        source_config: { deployment_type: 'dev' },
      });
      const path = `/v2/deployments/${source.id}`;
      for (const [body, field] of [
        [{ source_revision_config: { source_tarball_path: '/etc/passwd' } }, 'source_tarball_path'],
        [
          {
            source_revision_config: {
              source_tarball_path: `uploads/${source.id}/${MISSING_ID}.tar.gz`,
            },
          },
          'source_tarball_path',
        ],
        [{ name: 'renamed' }, 'name'],
        [{ source: 'external_container' }, 'source'],
        [{ source_config: { deployment_type: 'prod' } }, 'source_config.deployment_type'],
        [{ source_config: { custom_url: 'https://x.example' } }, 'source_config.custom_url'],
      ] as const) {
        expectDetail(await api('PATCH', path, body), 400, field);
      }
      const external = await createExternal(uniqueName('immutable-ext'));
      const moved = await api('PATCH', `/v2/deployments/${external.id}`, {
        source_config: { listener_id: MISSING_ID },
      });
      expectDetail(moved, 400, 'source_config.listener_id cannot be changed');
      // The same values as stored are no change.
      const same = await api('PATCH', path, { name: source.name, source: 'internal_source' });
      expect(same.status).toBe(200);
    });

    it('answers 404 naming the id of an unknown deployment', async () => {
      for (const [method, path] of [
        ['GET', `/v2/deployments/${MISSING_ID}`],
        ['PATCH', `/v2/deployments/${MISSING_ID}`],
        ['DELETE', `/v2/deployments/${MISSING_ID}`],
        ['GET', `/v2/deployments/${MISSING_ID}/revisions`],
        ['GET', `/v2/deployments/${MISSING_ID}/history`],
      ] as const) {
        const response = await api(method, path, method === 'PATCH' ? {} : undefined);
        expect(response.status).toBe(404);
        expect(response.body).toEqual({ detail: `Deployment ${MISSING_ID} not found` });
      }
    });
  });

  describe('tenancy', () => {
    it("hides one tenant's deployment from another", async () => {
      const mine = await createSource(uniqueName('tenant-owned'), {
        secrets: [{ name: 'OWNER_SECRET', value: SECRET_VALUE }],
      });
      expect(mine.tenant_id).toBe(TEST_TENANT_ID);
      const external = await createExternal(uniqueName('tenant-ext'));
      const notFound = { detail: `Deployment ${mine.id} not found` };
      for (const [method, path, body] of [
        ['GET', `/v2/deployments/${mine.id}`, undefined],
        ['PATCH', `/v2/deployments/${mine.id}`, { secrets: [] }],
        ['DELETE', `/v2/deployments/${mine.id}`, undefined],
        ['GET', `/v2/deployments/${mine.id}/revisions`, undefined],
        ['GET', `/v2/deployments/${mine.id}/history`, undefined],
        ['POST', `/v2/deployments/${mine.id}/upload-url`, undefined],
        ['POST', `/deployments/${mine.id}/upload-url`, undefined],
      ] as const) {
        const response = await api(method, path, body, OTHER_TENANT_KEY);
        expect({ method, path, status: response.status, body: response.body }).toEqual({
          method,
          path,
          status: 404,
          body: notFound,
        });
      }
      const revision = await api(
        'GET',
        `/v2/deployments/${external.id}/revisions/${external.latest_revision_id ?? ''}`,
        undefined,
        OTHER_TENANT_KEY,
      );
      expect(revision.status).toBe(404);
      expect(revision.body).toEqual({ detail: `Deployment ${external.id} not found` });

      const theirs = await api<Page<Deployment>>(
        'GET',
        '/v2/deployments?limit=100',
        undefined,
        OTHER_TENANT_KEY,
      );
      expect(theirs.status).toBe(200);
      expect(theirs.body.resources.map((d) => d.id)).not.toContain(mine.id);
      expect(theirs.body.resources.every((d) => d.tenant_id === OTHER_TENANT_ID)).toBe(true);
      // Still there, untouched, for its owner.
      const owner = await api<Deployment>('GET', `/v2/deployments/${mine.id}`);
      expect(owner.status).toBe(200);
      expect(owner.body).toMatchObject({
        tenant_id: TEST_TENANT_ID,
        status: expect.not.stringMatching(/DELETE/),
      });
    });

    it('keeps names unique per tenant only', async () => {
      const name = uniqueName('Same Name');
      await createSource(name);
      const again = await api('POST', '/v2/deployments', {
        name,
        source: 'internal_source',
        source_revision_config: { graph_config_path: 'langgraph.json' },
      });
      expectDetail(again, 409, name);
      const otherTenant = await api<Deployment>(
        'POST',
        '/v2/deployments',
        {
          name,
          source: 'internal_source',
          source_revision_config: { graph_config_path: 'l.json' },
        },
        OTHER_TENANT_KEY,
      );
      expect(otherTenant.status).toBe(201);
      expect(otherTenant.body.tenant_id).toBe(OTHER_TENANT_ID);
      const deleted = await api(
        'DELETE',
        `/v2/deployments/${otherTenant.body.id}`,
        undefined,
        OTHER_TENANT_KEY,
      );
      expect(deleted.status).toBe(204);
    });
  });
});
