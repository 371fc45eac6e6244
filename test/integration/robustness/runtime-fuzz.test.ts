import { describe, expect, it, jest } from '@jest/globals';
import { connectMcp } from '../../support/mcp-client.js';
import { runtimeRoutes } from '../../support/runtime-routes.js';
import { runtimeSuite } from '../../support/runtime-suite.js';
import { describeReport, fuzz } from './fuzz.js';

jest.setTimeout(300_000);

describe('the agent runtime under bad input on every route', () => {
  const suite = runtimeSuite('runtime_fuzz', { maxRetries: 0 });
  const routes = runtimeRoutes();

  it('knows the routes from the router, and those outside it, with the language each speaks', () => {
    expect(routes).toEqual(
      expect.arrayContaining([
        { method: 'POST', path: '/threads/:threadId/runs/stream' },
        { method: 'GET', path: '/assistants/:assistantId' },
        { method: 'GET', path: '/ok' },
        { method: 'POST', path: '/threads/:threadId/commands', speaks: 'protocol-commands' },
        { method: 'POST', path: '/threads/:threadId/stream/events', speaks: 'protocol-events' },
        { method: 'GET', path: '/threads/:threadId/stream/events' },
        expect.objectContaining({ method: 'POST', path: '/mcp', speaks: 'json-rpc' }),
        expect.objectContaining({ method: 'POST', path: '/a2a/:assistantId', speaks: 'json-rpc' }),
      ]),
    );
    expect(routes.length).toBeGreaterThan(30);
  });

  it('answers every request by its route’s error rule, never a 5xx, in time, and stays up', async () => {
    const { thread_id } = await suite.client.threads.create();
    const run = await suite.client.runs.wait(thread_id, 'custom', { input: { steps: 2 } });
    expect(run).toBeDefined();
    const [listed] = await suite.client.runs.list(thread_id);
    const assistant = await suite.client.assistants.create({ graphId: 'agent' });
    // A graph's first schemas compile its source's types (seconds on a busy machine): read once
    // here, so that the fuzz's 5 s bound judges bad input, not a cold start.
    await suite.client.assistants.getSchemas(assistant.assistant_id);
    const state = await suite.client.threads.getState(thread_id);
    const mcp = await connectMcp(suite.runtime.url, { 'x-api-key': suite.runtime.apiKey });
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
        mcpSessionId: mcp.transport.sessionId ?? '',
      },
    });
    await mcp.client.close();
    console.log(describeReport('runtime', routes.length, report));
    expect(report.failures).toEqual([]);
    expect(report.sent).toBeGreaterThan(routes.length * 10);
  });
});
