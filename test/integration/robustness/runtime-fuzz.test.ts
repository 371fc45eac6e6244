import { describe, expect, it, jest } from '@jest/globals';
import {
  RuntimeModule,
  type RuntimeParts,
} from '../../../apps/agent-runtime/src/runtime.module.js';
import { routesOf } from '../../support/nest-routes.js';
import { runtimeSuite } from '../../support/runtime-suite.js';
import { describeReport, fuzz } from './fuzz.js';

jest.setTimeout(300_000);

describe('the agent runtime under bad input on every route', () => {
  const suite = runtimeSuite('runtime_fuzz', { maxRetries: 0 });
  const routes = routesOf(RuntimeModule.forRoot({} as RuntimeParts));

  it('knows the routes from the router', () => {
    expect(routes).toEqual(
      expect.arrayContaining([
        { method: 'POST', path: '/threads/:threadId/runs/stream' },
        { method: 'GET', path: '/assistants/:assistantId' },
        { method: 'GET', path: '/ok' },
      ]),
    );
    expect(routes.length).toBeGreaterThan(30);
  });

  it('answers every request with a 2xx or a 4xx with a JSON detail, in time, and stays up', async () => {
    const { thread_id } = await suite.client.threads.create();
    const run = await suite.client.runs.wait(thread_id, 'custom', { input: { steps: 2 } });
    expect(run).toBeDefined();
    const [listed] = await suite.client.runs.list(thread_id);
    const assistant = await suite.client.assistants.create({ graphId: 'agent' });
    const state = await suite.client.threads.getState(thread_id);
    const report = await fuzz({
      name: 'runtime',
      url: suite.runtime.url,
      key: suite.runtime.apiKey,
      otherKey: 'another-tenant-key-0123456789',
      routes,
      knownIds: {
        threadId: thread_id,
        runId: listed?.run_id ?? '',
        assistantId: assistant.assistant_id,
        checkpointId: state.checkpoint.checkpoint_id ?? '',
      },
    });
    console.log(describeReport('runtime', routes.length, report));
    expect(report.failures).toEqual([]);
    expect(report.sent).toBeGreaterThan(routes.length * 10);
  });
});
