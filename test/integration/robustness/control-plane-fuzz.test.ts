import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Client } from '@langchain/langgraph-sdk';
import {
  RuntimeModule,
  type RuntimeParts,
} from '../../../apps/agent-runtime/src/runtime.module.js';
import { ControlPlaneModule } from '../../../apps/control-plane/src/control-plane.module.js';
import type { PlatformResources } from '../../../apps/control-plane/src/platform-resources.js';
import {
  OTHER_TENANT_KEY,
  startControlPlane,
  type ControlPlaneProcess,
} from '../../support/control-plane-process.js';
import {
  createSourceDeployment,
  packExample,
  patchSource,
  waitForRevision,
} from '../../support/deployment-flow.js';
import { routesOf, type Route } from '../../support/nest-routes.js';
import {
  ApiAudit,
  postExternalDeployment,
  registerClusterListener,
} from '../control-plane/api-audit.js';
import { describeReport, fuzz } from './fuzz.js';

const GATEWAY = '/v2/deployments/:deployment_id/runtime';

jest.setTimeout(300_000);

describe('the control plane under bad input on every route', () => {
  let cp: ControlPlaneProcess;
  const routes = routesOf(ControlPlaneModule.forRoot({} as PlatformResources));

  beforeAll(async () => {
    cp = await startControlPlane();
  });

  afterAll(async () => {
    await cp.dispose();
  });

  it('knows the routes from the router', () => {
    expect(routes).toEqual(
      expect.arrayContaining([
        { method: 'PATCH', path: '/v2/deployments/:deployment_id' },
        { method: 'PUT', path: '/v2/uploads/:deployment_id/:file' },
        { method: 'POST', path: '/v1/tracing-projects/:project_id/runs' },
      ]),
    );
    expect(routes.length).toBeGreaterThan(15);
  });

  it('answers every request with a 2xx or a 4xx with a JSON detail, in time, and stays up', async () => {
    const audit = new ApiAudit(cp);
    const listenerId = await registerClusterListener(audit);
    const deployment = await postExternalDeployment(audit, listenerId, `fuzz-${Date.now()}`);
    const report = await fuzz({
      name: 'control plane',
      url: cp.url,
      key: cp.apiKey,
      otherKey: OTHER_TENANT_KEY,
      routes,
      knownIds: {
        deployment_id: deployment.id,
        revision_id: deployment.latest_revision_id ?? '',
        integration_id: listenerId,
      },
    });
    console.log(describeReport('control plane', routes.length, report));
    expect(report.failures).toEqual([]);
    expect(report.sent).toBeGreaterThan(routes.length * 10);
  });

  it("answers every request to a deployment's runtime through the gateway the same way", async () => {
    const created = await createSourceDeployment(cp, `fuzz-gateway-${Date.now()}`);
    const patched = await patchSource(cp, created.id, await packExample());
    const revision = await waitForRevision(cp, created.id, patched.latest_revision_id ?? '');
    expect(revision.status).toBe('DEPLOYED');
    const runtimeUrl = `${cp.url}${GATEWAY.replace(':deployment_id', created.id)}`;
    const client = new Client({ apiUrl: runtimeUrl, apiKey: cp.apiKey });
    const { thread_id } = await client.threads.create();
    await client.runs.wait(thread_id, 'custom', { input: { steps: 2 } });
    const [listed] = await client.runs.list(thread_id);
    const assistant = await client.assistants.create({ graphId: 'agent' });
    const state = await client.threads.getState(thread_id);
    // Its schemas are read from its source once (a compile, seconds on a slow machine): done
    // before the fuzz, whose time limit is for answering bad input, not for that first read.
    await client.assistants.getSchemas(assistant.assistant_id);
    // Every route of the runtime, under the gateway: the deployment's id is fuzzed with the rest.
    const runtimeRoutes = routesOf(RuntimeModule.forRoot({} as RuntimeParts));
    const gatewayRoutes: Route[] = [
      ...runtimeRoutes,
      // What the runtime does not serve, and the gateway's bare prefix.
      { method: 'GET', path: '/no-such-route' },
      { method: 'POST', path: '/' },
    ].map((route) => ({ method: route.method, path: `${GATEWAY}${route.path}` }));
    const report = await fuzz({
      name: 'gateway',
      url: cp.url,
      key: cp.apiKey,
      otherKey: OTHER_TENANT_KEY,
      routes: gatewayRoutes,
      knownIds: {
        deployment_id: created.id,
        threadId: thread_id,
        runId: listed?.run_id ?? '',
        assistantId: assistant.assistant_id,
        checkpointId: state.checkpoint.checkpoint_id ?? '',
      },
      fixedParams: ['deployment_id'],
      budgetMs: 150_000,
    });
    console.log(describeReport('gateway', gatewayRoutes.length, report));
    expect(report.failures).toEqual([]);
    expect(report.routes).toBe(gatewayRoutes.length);
    expect(report.sent).toBeGreaterThan(gatewayRoutes.length * 10);
  });
});
