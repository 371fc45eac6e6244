import { describe, expect, it } from '@jest/globals';
import { refusalRoutes, refusedDestinations } from './jail-network.js';

describe('refusedDestinations', () => {
  it('refuses private, shared, link-local and loopback ranges and each of the host addresses', () => {
    const refused = refusedDestinations(['192.0.2.2', '203.0.113.7']);
    for (const range of [
      '10.0.0.0/8',
      '172.16.0.0/12',
      '192.168.0.0/16',
      '100.64.0.0/10',
      '169.254.0.0/16',
      '127.0.0.0/8',
      '192.0.2.2/32',
      '203.0.113.7/32',
    ]) {
      expect(refused).toContain(range);
    }
  });

  it('makes one prohibit route per range', () => {
    expect(refusalRoutes(['10.0.0.0/8', '192.0.2.2/32'])).toBe(
      'route add prohibit 10.0.0.0/8\nroute add prohibit 192.0.2.2/32\n',
    );
  });
});
