import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import {
  startControlPlane,
  type ControlPlaneProcess,
} from '../../support/control-plane-process.js';
import type { Deployment } from '../../support/deployment-flow.js';
import {
  ApiAudit,
  postExternalDeployment,
  registerClusterListener,
  type Page,
} from './api-audit.js';

jest.setTimeout(60_000);

const WRITERS = 12;

describe('concurrent writers on the control plane', () => {
  let cp: ControlPlaneProcess;
  let audit: ApiAudit;
  let listenerId: string;

  beforeAll(async () => {
    cp = await startControlPlane();
    audit = new ApiAudit(cp);
    listenerId = await registerClusterListener(audit);
  });

  afterAll(async () => {
    audit.expectNoServerErrors();
    await cp.dispose();
  });

  it('serializes concurrent PATCHes of one deployment: every one lands, each as its own revision', async () => {
    const deployment = await postExternalDeployment(audit, listenerId, 'contended');
    const responses = await Promise.all(
      Array.from({ length: WRITERS }, (_, writer) =>
        audit.api<Deployment>('PATCH', `/v2/deployments/${deployment.id}`, {
          source_revision_config: { image_uri: `registry.example/agent:${writer}` },
        }),
      ),
    );
    expect(responses.map((response) => response.status)).toEqual(Array(WRITERS).fill(200));
    const revisionIds = new Set(responses.map((response) => response.body.latest_revision_id));
    expect(revisionIds.size).toBe(WRITERS);

    const page = await audit.api<
      Page<{ id: string; source_revision_config: { image_uri: string } }>
    >('GET', `/v2/deployments/${deployment.id}/revisions?limit=100`);
    expect(page.body.resources).toHaveLength(WRITERS + 1);
    const images = page.body.resources.map((revision) => revision.source_revision_config.image_uri);
    for (let writer = 0; writer < WRITERS; writer += 1) {
      expect(images).toContain(`registry.example/agent:${writer}`);
    }

    const history = await audit.api<Page<{ seq: number; event: string }>>(
      'GET',
      `/v2/deployments/${deployment.id}/history`,
    );
    const seqs = history.body.resources.map((entry) => entry.seq);
    expect(seqs).toEqual(seqs.map((_, index) => index));
    expect(
      history.body.resources.filter((entry) => entry.event === 'RevisionCreated'),
    ).toHaveLength(WRITERS + 1);
    const latest = await audit.api<Deployment>('GET', `/v2/deployments/${deployment.id}`);
    expect(latest.body.latest_revision_id).toBe(page.body.resources[0]?.id);
  });

  it('gives exactly one of many concurrent creates of the same name the name; the others get 409', async () => {
    const responses = await Promise.all(
      Array.from({ length: WRITERS }, () =>
        audit.api('POST', '/v2/deployments', {
          name: 'only-one',
          source: 'external_container',
          source_config: { listener_id: listenerId },
          source_revision_config: { image_uri: 'registry.example/agent:1' },
        }),
      ),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([201, ...Array<number>(WRITERS - 1).fill(409)]);
    const listed = await audit.api<Page>('GET', '/v2/deployments?name=only-one');
    expect(listed.body.resources).toHaveLength(1);
  });

  it('gives deployments provisioned at the same time ports of their own', async () => {
    const created = await Promise.all(
      Array.from({ length: 6 }, (_, index) =>
        audit.api<Deployment>('POST', '/v2/deployments', {
          name: `together-${index}`,
          source: 'internal_source',
          source_revision_config: { graph_config_path: 'langgraph.json' },
        }),
      ),
    );
    const urls: string[] = [];
    for (const { body } of created) {
      const deadline = Date.now() + 30_000;
      let deployment = body;
      while (deployment.status !== 'READY' && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        deployment = (await audit.api<Deployment>('GET', `/v2/deployments/${body.id}`)).body;
      }
      expect(deployment.status).toBe('READY');
      urls.push(deployment.source_config.custom_url ?? '');
    }
    expect(new Set(urls).size).toBe(urls.length);
    for (const url of urls) {
      expect((await fetch(`${url}/ok`)).status).toBe(503);
    }
  });
});
