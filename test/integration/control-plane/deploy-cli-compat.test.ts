import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import {
  OTHER_TENANT_ID,
  OTHER_TENANT_KEY,
  startControlPlane,
  TEST_TENANT_ID,
  type ControlPlaneProcess,
} from '../../support/control-plane-process.js';
import { packExample, uploadSource, type Deployment } from '../../support/deployment-flow.js';

jest.setTimeout(60_000);

type LogPage = {
  logs: { timestamp: string; level: string; message: string }[];
  next_offset: string;
};

describe('what the official deploy CLI sends, over HTTP', () => {
  let cp: ControlPlaneProcess;
  let archive: Buffer;

  beforeAll(async () => {
    cp = await startControlPlane();
    archive = await packExample();
  }, 60_000);

  afterAll(async () => {
    await cp.dispose();
  }, 60_000);

  const createBare = async (name: string): Promise<Deployment> => {
    const created = await cp.api<Deployment>('POST', '/v2/deployments', {
      name,
      source: 'internal_source',
      source_config: { deployment_type: 'dev' },
      source_revision_config: {},
    });
    expect(created.status).toBe(201);
    return created.body;
  };

  it('creates an internal_source deployment with no revision, which every reader copes with', async () => {
    const deployment = await createBare('bare-one');
    expect(deployment.latest_revision_id).toBeNull();
    expect(deployment.source_revision_config.graph_config_path).toBeNull();
    const path = `/v2/deployments/${deployment.id}`;

    const list = await cp.api<{ resources: Deployment[] }>('GET', '/v2/deployments?name=bare-one');
    expect(list.body.resources.map((listed) => listed.id)).toEqual([deployment.id]);
    expect((await cp.api('GET', `${path}/revisions`)).body).toMatchObject({ resources: [] });
    const history = await cp.api<{ resources: { event: string }[] }>('GET', `${path}/history`);
    const events = history.body.resources.map((entry) => entry.event);
    // The local listener may already have given it a database and a URL: no revision, though.
    expect(events[0]).toBe('DeploymentCreated');
    expect(events.filter((event) => /Revision/.test(event))).toEqual([]);
    expect((await cp.api('GET', `${path}/logs`)).body).toEqual({
      revision_id: null,
      resources: [],
    });
    const logs = await cp.api('POST', `/v1/projects/${deployment.id}/deploy_logs`, { limit: 10 });
    expect(logs).toEqual({ status: 200, body: { logs: [], next_offset: '0' } });
  });

  it('takes langgraph_config_path with the first tarball and answers graph_config_path', async () => {
    const deployment = await createBare('bare-two');
    const path = `/v2/deployments/${deployment.id}`;
    const objectPath = await uploadSource(cp, deployment.id, archive);

    const without = await cp.api('PATCH', path, {
      revision_source: 'internal_source',
      source_revision_config: { source_tarball_path: objectPath },
    });
    expect(without.status).toBe(400);
    expect(without.body.detail).toMatch(/graph_config_path is required for internal_source/);

    const patched = await cp.api<Deployment>('PATCH', path, {
      revision_source: 'internal_source',
      source_revision_config: {
        source_tarball_path: objectPath,
        langgraph_config_path: 'langgraph.json',
      },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.source_revision_config).toMatchObject({
      graph_config_path: 'langgraph.json',
      source_tarball_path: objectPath,
    });
    expect(patched.body.source_revision_config).not.toHaveProperty('langgraph_config_path');
    expect(patched.body.latest_revision_id).not.toBeNull();

    const revisionId = patched.body.latest_revision_id as string;
    const build = await cp.api<LogPage>(
      'POST',
      `/v1/projects/${deployment.id}/revisions/${revisionId}/build_logs`,
      { order: 'asc', limit: 50 },
    );
    expect(build.status).toBe(200);
    expect(build.body.next_offset).toBe(String(build.body.logs.length));
    const deployLogs = await cp.api(
      'POST',
      `/v1/projects/${deployment.id}/revisions/${revisionId}/deploy_logs`,
      { order: 'desc', limit: 5, level: 'INFO', query: 'x' },
    );
    expect(deployLogs.status).toBe(200);
  });

  it('answers 422 when both names are given with different values', async () => {
    const response = await cp.api('POST', '/v2/deployments', {
      name: 'both-names',
      source: 'internal_source',
      source_revision_config: { graph_config_path: 'a.json', langgraph_config_path: 'b.json' },
    });
    expect(response.status).toBe(422);
    expect(response.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'source_revision_config', 'langgraph_config_path'] }),
    ]);
  });

  it('reads internal_docker as internal_container', async () => {
    const response = await cp.api('POST', '/v2/deployments', {
      name: 'docker-named',
      source: 'internal_docker',
      source_revision_config: { image_uri: 'registry.example/a:1' },
    });
    expect(response.status).toBe(400);
    expect(JSON.stringify(response.body.detail)).toContain('internal_container');
  });

  it('registers a listener of compute type kubernetes as cluster', async () => {
    const response = await cp.api('POST', '/v2/listeners', {
      name: 'k8s-named',
      compute_type: 'kubernetes',
    });
    expect(response.status).toBe(201);
    expect(response.body.compute_type).toBe('cluster');
  });

  it('refuses bad log queries and other tenants', async () => {
    const deployment = await createBare('logs-guarded');
    const logs = `/v1/projects/${deployment.id}/deploy_logs`;
    expect((await cp.api('POST', logs, { limit: 0 })).status).toBe(422);
    expect((await cp.api('POST', logs, { order: 'sideways' })).status).toBe(422);
    expect((await cp.api('POST', logs, { offset: '-1' })).status).toBe(422);
    expect((await cp.api('POST', logs, {}, OTHER_TENANT_KEY)).status).toBe(404);
    const unknownRevision = await cp.api(
      'POST',
      `/v1/projects/${deployment.id}/revisions/00000000-0000-4000-8000-0000000000ff/build_logs`,
      {},
    );
    expect(unknownRevision.status).toBe(404);
  });

  it('sends the status URL the CLI prints on to the deployment', async () => {
    const deployment = await createBare('status-url');
    const statusUrl = (tenant: string): string =>
      `${cp.url}/o/${tenant}/host/deployments/${deployment.id}`;
    const own = await fetch(statusUrl(TEST_TENANT_ID), {
      headers: { 'x-api-key': cp.apiKey },
      redirect: 'manual',
    });
    expect(own.status).toBe(302);
    expect(own.headers.get('location')).toBe(`/v2/deployments/${deployment.id}`);
    const foreign = await fetch(statusUrl(OTHER_TENANT_ID), {
      headers: { 'x-api-key': cp.apiKey },
      redirect: 'manual',
    });
    expect(foreign.status).toBe(404);
  });

  it('leads a browser (no key) from the status URL to the console page of the deployment, with no data', async () => {
    const deployment = await createBare('status-page');
    const opened = await fetch(`${cp.url}/o/${TEST_TENANT_ID}/host/deployments/${deployment.id}`, {
      headers: { accept: 'text/html' },
      redirect: 'manual',
    });
    expect(opened.status).toBe(302);
    expect(opened.headers.get('location')).toBe(`/#/deployments/${deployment.id}`);
    expect(await opened.text()).not.toContain('status-page');
    // Any other route still wants the key.
    const api = await fetch(`${cp.url}/v2/deployments/${deployment.id}`, { redirect: 'manual' });
    expect(api.status).toBe(401);
  });
});
