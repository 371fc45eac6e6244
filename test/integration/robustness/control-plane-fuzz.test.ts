import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { ControlPlaneModule } from '../../../apps/control-plane/src/control-plane.module.js';
import type { PlatformResources } from '../../../apps/control-plane/src/platform-resources.js';
import {
  OTHER_TENANT_KEY,
  startControlPlane,
  type ControlPlaneProcess,
} from '../../support/control-plane-process.js';
import { routesOf } from '../../support/nest-routes.js';
import {
  ApiAudit,
  postExternalDeployment,
  registerClusterListener,
} from '../control-plane/api-audit.js';
import { describeReport, fuzz } from './fuzz.js';

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
});
