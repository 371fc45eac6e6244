import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { ControlPlaneModule } from '../../../apps/control-plane/src/control-plane.module.js';
import type { PlatformResources } from '../../../apps/control-plane/src/platform-resources.js';
import {
  RuntimeModule,
  type RuntimeParts,
} from '../../../apps/agent-runtime/src/runtime.module.js';
import {
  startControlPlane,
  type ControlPlaneProcess,
} from '../../support/control-plane-process.js';
import { routesOf } from '../../support/nest-routes.js';
import { OpenApiContract, recordingFetch, type Exchange } from '../../support/openapi-contract.js';
import { runtimeSuite } from '../../support/runtime-suite.js';

jest.setTimeout(120_000);

const CONSOLE_API_TYPES = 'apps/console/src/api/control-plane.schema.d.ts';

/** The types openapi-typescript makes of the served document, as the npm script writes them. */
async function consoleApiTypes(baseUrl: string): Promise<string> {
  const { default: openapiTS, astToString } = await import('openapi-typescript');
  return astToString(await openapiTS(new URL(`${baseUrl}/openapi.json`)));
}

/** The generator's command line adds a comment of its own at the top. */
const withoutBanner = (text: string): string => text.replace(/^\/\*\*[\s\S]*?\*\/\s*/, '').trim();

async function expectServedWithoutKey(baseUrl: string): Promise<void> {
  const page = await fetch(`${baseUrl}/docs`);
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  expect(await page.text()).toContain('swagger-ui');
  const script = await fetch(`${baseUrl}/docs/swagger-ui-init.js`);
  expect(script.status).toBe(200);
  expect(await script.text()).toMatch(/"openapi": *"3\.1\.0"/);
}

describe('the runtime OpenAPI document', () => {
  const exchanges: Exchange[] = [];
  const suite = runtimeSuite('openapi', { maxRetries: 0, fetch: recordingFetch(exchanges) });
  let contract: OpenApiContract;

  beforeAll(async () => {
    contract = await OpenApiContract.fetch(suite.runtime.url);
  });

  it('is valid OpenAPI 3.1, served with its page without the API key', async () => {
    expect(contract.document.openapi).toBe('3.1.0');
    expect(await contract.documentErrors()).toEqual([]);
    await expectServedWithoutKey(suite.runtime.url);
    const guarded = await fetch(`${suite.runtime.url}/threads/search`, { method: 'POST' });
    expect(guarded.status).toBe(401);
  });

  it('documents every route of the router with its success answer', () => {
    const routes = routesOf(RuntimeModule.forRoot({} as RuntimeParts));
    expect(routes.length).toBeGreaterThan(50);
    expect(contract.undocumented(routes)).toEqual([]);
  });

  it('documents request bodies and query strings from the DTOs', () => {
    const schemas = contract.document.components?.schemas ?? {};
    expect(schemas.CreateRunDto).toMatchObject({
      properties: { assistant_id: expect.any(Object), stream_mode: expect.any(Object) },
      required: expect.arrayContaining(['assistant_id']),
    });
    const history = contract.document.paths['/threads/{threadId}/history']?.get as unknown as {
      parameters: { name: string; in: string }[];
    };
    expect(history.parameters.map(({ name, in: where }) => `${where}:${name}`)).toEqual(
      expect.arrayContaining(['path:threadId', 'query:limit', 'query:before']),
    );
  });

  it('declares the schemas that the real answers of an SDK session have', async () => {
    const { client } = suite;
    const assistant = await client.assistants.create({ graphId: 'agent', name: 'openapi' });
    await client.assistants.get(assistant.assistant_id);
    await client.assistants.search({ graphId: 'agent' });
    await client.assistants.count({ graphId: 'agent' });
    await client.assistants.update(assistant.assistant_id, { metadata: { v: 2 } });
    await client.assistants.getVersions(assistant.assistant_id);
    await client.assistants.setLatest(assistant.assistant_id, 1);
    await client.assistants.getGraph(assistant.assistant_id);
    await client.assistants.getSchemas(assistant.assistant_id);
    await client.assistants.getSubgraphs(assistant.assistant_id);
    const thread = await client.threads.create({ metadata: { purpose: 'openapi' } });
    await client.threads.get(thread.thread_id);
    await client.threads.search({ metadata: { purpose: 'openapi' } });
    await client.threads.count({});
    await client.threads.getState(thread.thread_id);
    await client.runs.wait(thread.thread_id, assistant.assistant_id, {
      input: { messages: [{ role: 'user', content: 'weather in Paris?' }] },
    });
    const run = await client.runs.create(thread.thread_id, assistant.assistant_id, {
      input: { messages: [{ role: 'user', content: 'and in Rome?' }] },
    });
    await client.runs.join(thread.thread_id, run.run_id);
    await client.runs.get(thread.thread_id, run.run_id);
    await client.runs.list(thread.thread_id);
    for await (const chunk of client.runs.stream(thread.thread_id, assistant.assistant_id, {
      input: { messages: [{ role: 'user', content: 'and in Oslo?' }] },
    })) {
      expect(chunk.event).toBeDefined();
    }
    const state = await client.threads.getState(thread.thread_id);
    await client.threads.getHistory(thread.thread_id, { limit: 3 });
    await client.threads.updateState(thread.thread_id, { values: {}, asNode: 'agent' });
    await client.threads.copy(thread.thread_id);
    await client.threads.update(thread.thread_id, { metadata: { more: true } });
    expect(state.checkpoint).toBeDefined();
    await client.store.putItem(['openapi', 'users'], 'a', { name: 'Ada' });
    await client.store.getItem(['openapi', 'users'], 'a');
    await client.store.searchItems(['openapi']);
    await client.store.listNamespaces({ prefix: ['openapi'] });
    const cron = await client.crons.create(assistant.assistant_id, { schedule: '0 3 * * *' });
    await client.crons.search({ assistantId: assistant.assistant_id });
    await client.crons.count({ assistantId: assistant.assistant_id });
    await client.crons.delete(cron.cron_id);
    await client.threads.delete(thread.thread_id);

    const answered = exchanges.filter((exchange) => exchange.status < 300);
    expect(answered.length).toBeGreaterThanOrEqual(30);
    expect(answered.flatMap((exchange) => contract.mismatches(exchange))).toEqual([]);
    const refused = await fetch(`${suite.runtime.url}/threads`, {
      method: 'POST',
      headers: { 'x-api-key': suite.runtime.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ metadata: 'not an object' }),
    });
    const refusal: Exchange = {
      method: 'POST',
      path: '/threads',
      status: refused.status,
      contentType: refused.headers.get('content-type') ?? '',
      body: await refused.json(),
    };
    expect(refusal.status).toBe(422);
    expect(contract.mismatches(refusal)).toEqual([]);
  });
});

describe('the control plane OpenAPI document', () => {
  let cp: ControlPlaneProcess;
  let contract: OpenApiContract;

  beforeAll(async () => {
    cp = await startControlPlane();
    contract = await OpenApiContract.fetch(cp.url);
  });

  afterAll(async () => {
    await cp.dispose();
  });

  it('is valid OpenAPI 3.1 and documents every route of the router', async () => {
    expect(await contract.documentErrors()).toEqual([]);
    await expectServedWithoutKey(cp.url);
    const routes = routesOf(ControlPlaneModule.forRoot({} as PlatformResources));
    expect(contract.undocumented(routes)).toEqual([]);
  });

  it("is the document the console's API types were generated from (npm run console:api-types)", async () => {
    const generated = await consoleApiTypes(cp.url);
    const committed = await readFile(CONSOLE_API_TYPES, 'utf8');
    expect(withoutBanner(committed)).toBe(withoutBanner(generated));
  });

  it('declares the schemas that real answers have', async () => {
    const answers: Exchange[] = [];
    const call = async (
      method: string,
      path: string,
      body?: unknown,
    ): Promise<Record<string, unknown>> => {
      const response = await cp.api(method, path, body);
      answers.push({
        method,
        path,
        status: response.status,
        contentType: 'application/json',
        body: response.body,
      });
      return response.body;
    };
    const listener = await call('POST', '/v2/listeners', { name: 'k8s', compute_type: 'cluster' });
    const deployment = await call('POST', '/v2/deployments', {
      name: `openapi-${Date.now()}`,
      source: 'external_container',
      source_config: { listener_id: listener.id },
      source_revision_config: { image_uri: 'registry.example/agent:1' },
      secrets: [{ name: 'TOKEN', value: 'hidden-value' }],
    });
    const id = String(deployment.id);
    await call('GET', '/v2/deployments');
    await call('GET', `/v2/deployments/${id}`);
    await call('PATCH', `/v2/deployments/${id}`, {
      source_revision_config: { image_uri: 'registry.example/agent:2' },
    });
    const revisions = await call('GET', `/v2/deployments/${id}/revisions`);
    const revisionId = String((revisions.resources as { id: string }[])[0]?.id);
    await call('GET', `/v2/deployments/${id}/revisions/${revisionId}`);
    await call('GET', `/v2/deployments/${id}/history`);
    await call('GET', `/v2/deployments/${id}/revisions/${revisionId}/logs`);
    await call('POST', `/v1/projects/${id}/deploy_logs`, {});
    await call('GET', '/v2/listeners');
    await call('GET', '/info');
    expect(answers.filter((answer) => answer.status >= 300)).toEqual([]);
    expect(answers.flatMap((answer) => contract.mismatches(answer))).toEqual([]);
  });
});
