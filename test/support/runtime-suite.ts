import { afterAll, beforeAll } from '@jest/globals';
import { Client, type ClientConfig } from '@langchain/langgraph-sdk';
import { startRuntime, type RuntimeProcess } from './runtime-process.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';

export interface RuntimeSuite {
  readonly database: TestDatabase;
  readonly runtime: RuntimeProcess;
  /** The official SDK's client for the runtime. */
  readonly client: Client;
}

/**
 * One agent runtime on a database of its own for a test file: started before its tests, stopped
 * and its database dropped after them.
 */
export function runtimeSuite(
  label: string,
  callerOptions?: ClientConfig['callerOptions'],
  options: { readonly env?: Readonly<Record<string, string>>; readonly graphConfig?: string } = {},
): RuntimeSuite {
  let started: RuntimeSuite | undefined;
  beforeAll(async () => {
    const database = await createTestDatabase(label);
    const runtime = await startRuntime({ databaseUrl: database.url, ...options });
    const client = new Client({ apiUrl: runtime.url, apiKey: runtime.apiKey, callerOptions });
    started = { database, runtime, client };
  }, 90_000);
  afterAll(async () => {
    await started?.runtime.stop();
    await started?.database.drop();
  });
  const get = (): RuntimeSuite => {
    if (!started) throw new Error('The runtime is used before its beforeAll has run');
    return started;
  };
  return {
    get database() {
      return get().database;
    },
    get runtime() {
      return get().runtime;
    },
    get client() {
      return get().client;
    },
  };
}

/** A request with the runtime's API key and a JSON body, for what the SDK would not send. */
export function apiRequest(
  suite: RuntimeSuite,
): (method: string, path: string, body?: unknown) => Promise<Response> {
  return (method, path, body) =>
    fetch(`${suite.runtime.url}${path}`, {
      method,
      headers: { 'x-api-key': suite.runtime.apiKey, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
}
