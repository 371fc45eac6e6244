import { describe, expect, it, jest } from '@jest/globals';
import { queryRows } from '../../support/database-query.js';
import { runtimeSuite } from '../../support/runtime-suite.js';
import { eventually } from '../control-plane/api-audit.js';

jest.setTimeout(60_000);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('request ids and structured logs', () => {
  const suite = runtimeSuite('request-ids');

  const post = (path: string, body: unknown, requestId?: string) =>
    fetch(`${suite.runtime.url}${path}`, {
      method: 'POST',
      headers: {
        'x-api-key': suite.runtime.apiKey,
        'content-type': 'application/json',
        ...(requestId === undefined ? {} : { 'x-request-id': requestId }),
      },
      body: JSON.stringify(body),
    });

  const answeredLines = (requestId: string) =>
    suite.runtime
      .logLines()
      .filter((line) => line.request_id === requestId && line.msg === 'request answered');

  it("takes the client's x-request-id, echoes it, and logs the answer under it as JSON", async () => {
    const response = await post('/threads', { metadata: { who: 'logs' } }, 'trace-7f3a.1');
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe('trace-7f3a.1');
    const line = await eventually('the answer logged', () =>
      Promise.resolve(answeredLines('trace-7f3a.1')[0]),
    );
    expect(line).toMatchObject({
      level: 'info',
      service: 'berth-runtime',
      method: 'POST',
      path: '/threads',
      route: '/threads',
      status: 200,
      ms: expect.any(Number),
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
  });

  it('makes a new id for a request without one, or with one that is no plausible id', async () => {
    const none = await post('/threads', {});
    expect(none.headers.get('x-request-id')).toMatch(UUID);
    const odd = await post('/threads', {}, 'no spaces allowed');
    expect(odd.headers.get('x-request-id')).toMatch(UUID);
    const long = await post('/threads', {}, 'x'.repeat(129));
    expect(long.headers.get('x-request-id')).toMatch(UUID);
  });

  it('names refused requests too, and never logs the API key', async () => {
    const refused = await fetch(`${suite.runtime.url}/threads/search`, {
      method: 'POST',
      headers: { 'x-api-key': 'wrong-key-4471', 'x-request-id': 'refused-1' },
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('x-request-id')).toBe('refused-1');
    const line = await eventually('the refusal logged', () =>
      Promise.resolve(answeredLines('refused-1')[0]),
    );
    expect(line.status).toBe(401);
    expect(suite.runtime.output()).not.toContain(suite.runtime.apiKey);
    expect(suite.runtime.output()).not.toContain('wrong-key-4471');
  });

  it("puts the request id in the run's lifecycle events, those its worker wrote included", async () => {
    const thread = (await (await post('/threads', {})).json()) as { thread_id: string };
    const response = await post(
      `/threads/${thread.thread_id}/runs/wait`,
      { assistant_id: 'agent', input: { messages: [{ role: 'user', content: 'hi' }] } },
      'run-origin-42',
    );
    expect(response.status).toBe(200);
    const runId = /runs\/([0-9a-f-]+)/.exec(response.headers.get('content-location') ?? '')?.[1];
    expect(runId).toMatch(UUID);
    const events = await queryRows<{ event_type: string; metadata: Record<string, unknown> }>(
      suite.database.url,
      `select event_type, metadata from es_events where stream_id = $1
        and event_type in ('RunCreated', 'RunStarted', 'RunFinished') order by stream_position`,
      [`run-${runId}`],
    );
    expect(events.map((event) => event.event_type)).toEqual([
      'RunCreated',
      'RunStarted',
      'RunFinished',
    ]);
    for (const event of events) expect(event.metadata.request_id).toBe('run-origin-42');
  });
});
