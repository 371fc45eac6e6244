import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { handleCommand, PostgresEventStore } from '#libs/event-store';
import { DeploymentWriter } from '../../../apps/control-plane/src/deployer/deployment-writer.js';
import { deploymentDecider } from '../../../apps/control-plane/src/deployments/domain/deployment.decider.js';
import { deploymentStream } from '../../../apps/control-plane/src/deployments/domain/deployment.events.js';
import {
  createInternal,
  TENANT_ID,
} from '../../../apps/control-plane/src/deployments/domain/testing/deployment-decider.fixtures.js';
import { createTestDatabase } from '../../support/test-database.js';

const NOW = '2026-03-01T00:00:00.000Z';

describe("the reconciler's deployment writer", () => {
  it('tells its own appends apart from what another writer appended, even once it has read them', async () => {
    const database = await createTestDatabase('deployment_writer');
    const store = await PostgresEventStore.connect({ connectionString: database.url });
    try {
      await tellsOwnAppendsApart(store);
    } finally {
      await store.close();
      await database.drop();
    }
  });
});

async function tellsOwnAppendsApart(store: PostgresEventStore): Promise<void> {
  const deploymentId = randomUUID();
  const stream = deploymentStream(deploymentId);
  await handleCommand({
    store,
    streamId: stream,
    decider: deploymentDecider,
    command: createInternal({ deployment_id: deploymentId }),
  });
  const writer = new DeploymentWriter(store);
  await writer.load(deploymentId);
  const created = (await store.readStream(stream)).length;

  await writer.record(deploymentId, [
    {
      kind: 'provisioned',
      custom_url: 'http://127.0.0.1:8201',
      port: 8201,
      database: 'berth_deployment_x',
      now: NOW,
    },
  ]);
  // The API deletes it meanwhile; the writer then reads that, as a reconcile would.
  await handleCommand({
    store,
    streamId: stream,
    decider: deploymentDecider,
    command: { kind: 'delete', deployment_id: deploymentId, tenant_id: TENANT_ID, now: NOW },
  });
  const state = await writer.load(deploymentId);
  expect(state.status).toBe('AWAITING_DELETE');

  const positions = (await store.readStream(stream)).map((event) => event.streamPosition);
  const own = positions.slice(created, -1);
  const deleteRequested = positions.at(-1) ?? -1;
  expect(own.length).toBeGreaterThan(0);
  expect(own.map((position) => writer.wrote(deploymentId, position))).toEqual(own.map(() => true));
  // Told once: the log returns each event once.
  expect(writer.wrote(deploymentId, own[0] ?? -1)).toBe(false);
  // Read, not written: the reconcile that read it may not have acted on it, so it must wake one.
  expect(writer.wrote(deploymentId, deleteRequested)).toBe(false);
}
