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

/** The suite's runtime, with a restart: the process stopped, a new one on the same database. */
export interface RestartableRuntimeSuite extends RuntimeSuite {
  restart(): Promise<void>;
}

/**
 * One agent runtime on a database of its own for a test file: started before its tests, stopped
 * and its database dropped after them.
 */
export function runtimeSuite(
  label: string,
  callerOptions?: ClientConfig['callerOptions'],
  options: { readonly env?: Readonly<Record<string, string>>; readonly graphConfig?: string } = {},
): RestartableRuntimeSuite {
  let started: RuntimeSuite | undefined;
  const start = async (database: TestDatabase): Promise<RuntimeSuite> => {
    const runtime = await startRuntime({ databaseUrl: database.url, ...options });
    const client = new Client({ apiUrl: runtime.url, apiKey: runtime.apiKey, callerOptions });
    return { database, runtime, client };
  };
  beforeAll(async () => {
    started = await start(await createTestDatabase(label));
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
    restart: async () => {
      const { database, runtime } = get();
      await runtime.stop();
      started = await start(database);
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
