import { describe, expect, it } from '@jest/globals';
import { deciderSpecification } from '#libs/domain';
import { nameClaimDecider, nameClaimStream, type NameClaimEvent } from './name-claim.decider.js';

const nameClaim = deciderSpecification(nameClaimDecider);
const claimedBy = (deployment_id: string): NameClaimEvent => ({
  type: 'DeploymentNameClaimed',
  data: { deployment_id, name: 'agent' },
});
const releasedBy = (deployment_id: string): NameClaimEvent => ({
  type: 'DeploymentNameReleased',
  data: { deployment_id },
});

describe('name claim decider', () => {
  it('gives a free name to the first deployment that claims it', () => {
    nameClaim
      .given([])
      .when({ kind: 'claim', deployment_id: 'd-1', name: 'agent' })
      .then([claimedBy('d-1')]);
  });

  it('refuses the name to another deployment while it is held', () => {
    nameClaim
      .given([claimedBy('d-1')])
      .when({ kind: 'claim', deployment_id: 'd-2', name: 'agent' })
      .thenFails('conflict', /A deployment named "agent" already exists/);
  });

  it('lets the holder claim again without a new event (a retried create)', () => {
    nameClaim
      .given([claimedBy('d-1')])
      .when({ kind: 'claim', deployment_id: 'd-1', name: 'agent' })
      .then([]);
  });

  it('is released by its holder only, and is free again after', () => {
    nameClaim
      .given([claimedBy('d-1')])
      .when({ kind: 'release', deployment_id: 'd-2' })
      .then([]);
    nameClaim
      .given([claimedBy('d-1')])
      .when({ kind: 'release', deployment_id: 'd-1' })
      .then([releasedBy('d-1')]);
    nameClaim
      .given([claimedBy('d-1'), releasedBy('d-1')])
      .when({ kind: 'claim', deployment_id: 'd-2', name: 'agent' })
      .then([claimedBy('d-2')]);
  });

  it('keeps one stream per tenant and name, whatever characters the name holds', () => {
    expect(nameClaimStream('t-1', 'agent')).toBe(nameClaimStream('t-1', 'agent'));
    expect(nameClaimStream('t-1', 'agent')).not.toBe(nameClaimStream('t-2', 'agent'));
    expect(nameClaimStream('t-1', 'a/b c')).toMatch(/^deployment_name-t-1-[0-9a-f]{32}$/);
  });
});
