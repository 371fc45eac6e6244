import { describe, expect, it } from '@jest/globals';
import {
  admitConnections,
  deploymentCapacity,
  runtimeConnectionsOf,
  type ServerConnections,
} from './connection-budget.js';

/** PostgreSQL's defaults (100, 3 for superusers) and Berth's reserve of 50: 47 for deployments. */
const SERVER: ServerConnections = { max: 100, reservedByServer: 3, reservedForPlatform: 50 };

describe('connection admission', () => {
  it('leaves the superusers’ slots and the platform’s reserve out of what deployments share', () => {
    expect(deploymentCapacity(SERVER)).toBe(47);
    expect(deploymentCapacity({ max: 500, reservedByServer: 3, reservedForPlatform: 50 })).toBe(
      447,
    );
    expect(deploymentCapacity({ max: 40, reservedByServer: 3, reservedForPlatform: 50 })).toBe(0);
  });

  it('admits a new deployment while the sum of the limits stays within the capacity', () => {
    expect(
      admitConnections(SERVER, { requested: 20, current: undefined, othersGranted: 27 }),
    ).toEqual({ admitted: true, capacity: 47 });
  });

  it('refuses the deployment that would pass it, and says by how much and what to change', () => {
    const admission = admitConnections(SERVER, {
      requested: 20,
      current: undefined,
      othersGranted: 40,
    });
    expect(admission.admitted).toBe(false);
    expect(admission).toMatchObject({
      capacity: 47,
      reason: expect.stringMatching(
        /no room for this deployment's 20 connections .*hold 40 of the 47 .*max_connections 100, less 3 reserved for superusers and 50 kept for the platform, BERTH_DB_RESERVED_CONNECTIONS\), 7 are left/,
      ) as unknown,
    });
  });

  it('keeps a deployment admitted before however full the server is, unless it asks for more', () => {
    // max_connections lowered since: the deployments that run go on running.
    const full = { max: 60, reservedByServer: 3, reservedForPlatform: 50 };
    expect(admitConnections(full, { requested: 20, current: 20, othersGranted: 40 }).admitted).toBe(
      true,
    );
    // Lowered with BERTH_DEPLOYMENT_DB_CONNECTIONS: always fine.
    expect(admitConnections(full, { requested: 10, current: 64, othersGranted: 40 }).admitted).toBe(
      true,
    );
    // Raised: only where there is room.
    expect(admitConnections(full, { requested: 30, current: 20, othersGranted: 40 }).admitted).toBe(
      false,
    );
  });

  it('gives each runtime half of its role, so two fit during a rollout', () => {
    expect(runtimeConnectionsOf(20)).toBe(10);
    expect(runtimeConnectionsOf(11)).toBe(5);
    expect(2 * runtimeConnectionsOf(10)).toBeLessThanOrEqual(10);
  });
});
