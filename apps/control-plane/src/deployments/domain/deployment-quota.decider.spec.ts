import { describe, expect, it } from '@jest/globals';
import { deciderSpecification } from '#libs/domain';
import {
  deploymentQuotaDecider,
  deploymentQuotaStream,
  type DeploymentQuotaEvent,
} from './deployment-quota.decider.js';

const quota = deciderSpecification(deploymentQuotaDecider);
const counted = (deployment_id: string): DeploymentQuotaEvent => ({
  type: 'TenantDeploymentCounted',
  data: { deployment_id },
});
const released = (deployment_id: string): DeploymentQuotaEvent => ({
  type: 'TenantDeploymentReleased',
  data: { deployment_id },
});
const take = (deployment_id: string, max: number, listed: string[] = []) =>
  ({ kind: 'take', deployment_id, max, listed }) as const;

describe('deployment quota decider', () => {
  it('counts a deployment while the tenant is under its quota', () => {
    quota
      .given([counted('d-1')])
      .when(take('d-2', 2))
      .then([counted('d-2')]);
  });

  it('refuses one more deployment than the quota, naming the setting (409)', () => {
    quota
      .given([counted('d-1'), counted('d-2')])
      .when(take('d-3', 2))
      .thenFails('conflict', /has 2 deployments.*BERTH_TENANT_MAX_DEPLOYMENTS=2.*delete one/);
  });

  it('gives a released place to the next deployment', () => {
    quota
      .given([counted('d-1'), counted('d-2'), released('d-1')])
      .when(take('d-3', 2))
      .then([counted('d-3')]);
  });

  it('counts the deployments the read model lists, made before the quota was kept', () => {
    quota
      .given([])
      .when(take('d-3', 2, ['old-1', 'old-2']))
      .thenFails('conflict', /has 2 deployments/);
    // Listed and counted at once (the read model caught up) is one deployment, not two.
    quota
      .given([counted('d-1')])
      .when(take('d-2', 2, ['d-1']))
      .then([counted('d-2')]);
  });

  it('does not count a released deployment the read model still lists (its tear-down runs)', () => {
    quota
      .given([released('old-1')])
      .when(take('d-2', 1, ['old-1']))
      .then([counted('d-2')]);
  });

  it('counts a retried creation once', () => {
    quota
      .given([counted('d-1')])
      .when(take('d-1', 1))
      .then([]);
  });

  it('releases once, also a deployment made before the quota was kept', () => {
    quota
      .given([counted('d-1')])
      .when({ kind: 'release', deployment_id: 'd-1' })
      .then([released('d-1')]);
    quota
      .given([released('d-1')])
      .when({ kind: 'release', deployment_id: 'd-1' })
      .then([]);
    quota
      .given([])
      .when({ kind: 'release', deployment_id: 'old-1' })
      .then([released('old-1')]);
  });

  it('keeps one stream per tenant', () => {
    expect(deploymentQuotaStream('t-1')).toBe('deployment_quota-t-1');
  });
});
