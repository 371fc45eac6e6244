import { randomBytes } from 'node:crypto';
import { dropDatabase, ensureDatabase, withDatabase } from '#libs/database';
import { testServerUrl } from './test-server.js';

export interface TestDatabase {
  readonly url: string;
  drop(): Promise<void>;
}

/** A database of its own for one test file, on the test server, dropped afterwards. */
export async function createTestDatabase(label: string): Promise<TestDatabase> {
  const server = testServerUrl();
  const name = `berth_test_${label}_${randomBytes(4).toString('hex')}`;
  await ensureDatabase(server, name);
  return {
    url: withDatabase(server, name),
    drop: () => dropDatabase(server, name),
  };
}
