// Jest runs the compiled copy of this file (dist/), outside its module system: `npm test` builds first.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedPostgres } from '#libs/database';
import { TEST_SERVER_URL_VARIABLE } from './test-server.js';

declare global {
  var berthStopTestServer: (() => Promise<void>) | undefined;
}

export default async function globalSetup(): Promise<void> {
  // Platforms the tests start record themselves here, not where a developer's own platform is.
  process.env.XDG_STATE_HOME = await mkdtemp(join(tmpdir(), 'berth-test-state-'));
  const external = process.env.DATABASE_URL;
  if (external) {
    process.env[TEST_SERVER_URL_VARIABLE] = external;
    console.log(`\nIntegration tests on the PostgreSQL server at DATABASE_URL`);
    return;
  }
  const dataDir = await mkdtemp(join(tmpdir(), 'berth-test-'));
  const server = await startEmbeddedPostgres({ dataDir });
  process.env[TEST_SERVER_URL_VARIABLE] = server.url;
  globalThis.berthStopTestServer = async () => {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
  console.log(`\nIntegration tests on an embedded PostgreSQL in ${dataDir}`);
}
