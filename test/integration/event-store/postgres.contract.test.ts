import { afterAll, beforeAll, describe } from '@jest/globals';
import { PostgresEventStore } from '#libs/event-store';
import { eventStoreContract } from '../../../libs/event-store/src/testing/event-store.contract.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';

describe('PostgreSQL event store: the contract', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase('contract');
  });

  afterAll(async () => {
    await database.drop();
  });

  eventStoreContract(() => PostgresEventStore.connect({ connectionString: database.url }));
});
