import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { runtimeSuite } from '../../support/runtime-suite.js';

interface Answer {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly contentType: string;
  readonly text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  readonly json: unknown;
}

interface RequestOptions {
  /** A value to send as JSON, or a string to send as it is. */
  readonly body?: unknown;
  /** The api key to send; null sends none. Defaults to the runtime's key. */
  readonly key?: string | null;
  readonly headers?: Readonly<Record<string, string>>;
  readonly contentType?: string;
}

interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

describe('agent runtime error answers over plain HTTP', () => {
  const suite = runtimeSuite('runtime_errors', { maxRetries: 0 });
  /** Every answer this file received, to check at the end that none was a 5xx. */
  const answers: Answer[] = [];

  async function request(method: string, path: string, options: RequestOptions = {}) {
    const headers: Record<string, string> = { ...options.headers };
    const key = options.key === undefined ? suite.runtime.apiKey : options.key;
    if (key !== null) headers['x-api-key'] = key;
    let body: string | undefined;
    if (options.body !== undefined) {
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      headers['content-type'] = options.contentType ?? 'application/json';
    }
    const response = await fetch(`${suite.runtime.url}${path}`, { method, headers, body });
    const contentType = response.headers.get('content-type') ?? '';
    // A stream that unexpectedly opened is not read to its end.
    const text = contentType.startsWith('text/event-stream') ? '' : await response.text();
    if (contentType.startsWith('text/event-stream')) await response.body?.cancel();
    let json: unknown;
    try {
      json = JSON.parse(text) as unknown;
    } catch {
      json = undefined;
    }
    const answer: Answer = { method, path, status: response.status, contentType, text, json };
    answers.push(answer);
    return answer;
  }

  /** The answer has the status, is not a 5xx, and is a JSON object with a `detail`. */
  function expectError(answer: Answer, status: number): void {
    const seen = { route: `${answer.method} ${answer.path}`, status: answer.status };
    expect(seen).toEqual({ route: seen.route, status });
    expect(answer.status).toBeLessThan(500);
    expect(answer.contentType).toMatch(/^application\/json/);
    expect(answer.json).toEqual(expect.objectContaining({ detail: expect.anything() }));
  }

  /** 422 whose detail lists {loc, msg, type} issues, one of them at `field`. */
  function expectValidationError(answer: Answer, field: string): void {
    expectError(answer, 422);
    const detail = (answer.json as { detail: unknown }).detail;
    expect(Array.isArray(detail)).toBe(true);
    const issues = detail as ValidationIssue[];
    expect(issues.length).toBeGreaterThan(0);
    for (const issue of issues) {
      expect(issue).toEqual({
        loc: expect.any(Array),
        msg: expect.any(String),
        type: expect.any(String),
      });
    }
    expect(issues.some((issue) => issue.loc.at(-1) === field)).toBe(true);
  }

  describe('authentication', () => {
    let threadId: string;
    let runId: string;
    let assistantId: string;
    let routes: [string, string, unknown?][];

    beforeAll(async () => {
      threadId = (await suite.client.threads.create()).thread_id;
      const run = await suite.client.runs.create(threadId, 'custom', { input: { steps: 2 } });
      runId = run.run_id;
      await suite.client.runs.join(threadId, runId);
      assistantId = (await suite.client.assistants.create({ graphId: 'agent' })).assistant_id;
      // `GET /info` answers without a key, with less (runtime-compat-app.test.ts).
      routes = [
        ['POST', '/threads', {}],
        ['POST', '/threads/search', {}],
        ['GET', `/threads/${threadId}`],
        ['PATCH', `/threads/${threadId}`, { metadata: { hacked: true } }],
        ['DELETE', `/threads/${threadId}`],
        ['GET', `/threads/${threadId}/state`],
        ['GET', `/threads/${threadId}/history`],
        ['POST', `/threads/${threadId}/history`, {}],
        ['GET', `/threads/${threadId}/runs`],
        ['POST', `/threads/${threadId}/runs`, { assistant_id: 'custom' }],
        ['POST', `/threads/${threadId}/runs/wait`, { assistant_id: 'custom' }],
        ['POST', `/threads/${threadId}/runs/stream`, { assistant_id: 'custom' }],
        ['GET', `/threads/${threadId}/runs/${runId}`],
        ['GET', `/threads/${threadId}/runs/${runId}/join`],
        ['GET', `/threads/${threadId}/runs/${runId}/stream`],
        ['POST', `/threads/${threadId}/runs/${runId}/cancel`],
        ['POST', '/runs', { assistant_id: 'custom' }],
        ['POST', '/runs/wait', { assistant_id: 'custom' }],
        ['POST', '/runs/stream', { assistant_id: 'custom' }],
        ['POST', '/assistants', { graph_id: 'agent' }],
        ['POST', '/assistants/search', {}],
        ['GET', `/assistants/${assistantId}`],
        ['PATCH', `/assistants/${assistantId}`, { context: { model_name: 'hacked' } }],
        ['DELETE', `/assistants/${assistantId}`],
        ['POST', `/assistants/${assistantId}/versions`, {}],
        ['POST', `/assistants/${assistantId}/latest`, { version: 1 }],
        ['GET', '/no-such-route'],
      ];
    });

    it('a request without x-api-key answers 401 with a JSON detail on every kind of route', async () => {
      for (const [method, path, body] of routes) {
        expectError(await request(method, path, { key: null, body }), 401);
      }
    });

    it('a wrong key answers 401 on every kind of route', async () => {
      for (const [method, path, body] of routes) {
        expectError(await request(method, path, { key: 'wrong-key', body }), 401);
      }
    });

    it('an empty key, a key with extra characters and a wrong bearer token answer 401', async () => {
      const path = `/threads/${threadId}`;
      expectError(await request('GET', path, { key: '' }), 401);
      expectError(await request('GET', path, { key: `${suite.runtime.apiKey}x` }), 401);
      expectError(await request('GET', path, { key: suite.runtime.apiKey.slice(0, -1) }), 401);
      expectError(
        await request('GET', path, { key: null, headers: { authorization: 'Bearer wrong-key' } }),
        401,
      );
    });

    it('refused requests changed nothing', async () => {
      const thread = await suite.client.threads.get(threadId);
      expect(thread.metadata).not.toHaveProperty('hacked');
      expect((await suite.client.runs.list(threadId)).map((run) => run.run_id)).toEqual([runId]);
      const assistant = await suite.client.assistants.get(assistantId);
      expect(assistant.version).toBe(1);
      expect(assistant.context).toEqual({});
      const answer = await request('POST', '/threads', {
        key: null,
        body: { metadata: { refused: assistantId } },
      });
      expectError(answer, 401);
      expect(await suite.client.threads.search({ metadata: { refused: assistantId } })).toEqual([]);
    });

    it('the key header name is case-insensitive', async () => {
      const answer = await request('GET', `/threads/${threadId}`, {
        key: null,
        headers: { 'X-API-KEY': suite.runtime.apiKey },
      });
      expect(answer.status).toBe(200);
      expect((answer.json as { thread_id: string }).thread_id).toBe(threadId);
    });

    it('GET /ok answers without a key', async () => {
      const answer = await request('GET', '/ok', { key: null });
      expect(answer.status).toBe(200);
      expect(answer.json).toEqual({ ok: true });
      expect((await request('GET', '/ok?probe=1', { key: null })).status).toBe(200);
      expect((await request('GET', '/ok', { key: 'wrong-key' })).status).toBe(200);
    });
  });

  describe('unknown ids', () => {
    it('an unknown thread id answers 404 with a detail on get, patch, delete, state, history and runs', async () => {
      const id = randomUUID();
      expectError(await request('GET', `/threads/${id}`), 404);
      expectError(await request('PATCH', `/threads/${id}`, { body: { metadata: { a: 1 } } }), 404);
      expectError(await request('DELETE', `/threads/${id}`), 404);
      expectError(await request('GET', `/threads/${id}/state`), 404);
      expectError(await request('GET', `/threads/${id}/state/${randomUUID()}`), 404);
      expectError(await request('GET', `/threads/${id}/history`), 404);
      expectError(await request('POST', `/threads/${id}/history`, { body: {} }), 404);
      expectError(await request('GET', `/threads/${id}/runs`), 404);
      expectError(
        await request('POST', `/threads/${id}/runs`, { body: { assistant_id: 'agent' } }),
        404,
      );
      expectError(
        await request('POST', `/threads/${id}/runs/wait`, { body: { assistant_id: 'agent' } }),
        404,
      );
      expectError(
        await request('POST', `/threads/${id}/runs/stream`, { body: { assistant_id: 'agent' } }),
        404,
      );
      expectError(await request('GET', `/threads/${id}/runs/${randomUUID()}`), 404);
      expectError(await request('GET', `/threads/${id}/runs/${randomUUID()}/join`), 404);
      expectError(await request('GET', `/threads/${id}/runs/${randomUUID()}/stream`), 404);
      expectError(await request('POST', `/threads/${id}/runs/${randomUUID()}/cancel`), 404);
    });

    it.each([['not-a-uuid'], ['12345'], ['thread;drop table threads']])(
      'a thread id that is no uuid (%s) answers 404, not 500',
      async (raw) => {
        const id = encodeURIComponent(raw);
        expectError(await request('GET', `/threads/${id}`), 404);
        expectError(await request('PATCH', `/threads/${id}`, { body: { metadata: {} } }), 404);
        expectError(await request('DELETE', `/threads/${id}`), 404);
        expectError(await request('GET', `/threads/${id}/state`), 404);
        expectError(await request('GET', `/threads/${id}/history`), 404);
        expectError(await request('GET', `/threads/${id}/runs`), 404);
        expectError(
          await request('POST', `/threads/${id}/runs`, { body: { assistant_id: 'agent' } }),
          404,
        );
        expectError(await request('GET', `/threads/${id}/runs/${id}`), 404);
        expectError(await request('GET', `/threads/${id}/runs/${id}/join`), 404);
      },
    );

    it('an unknown assistant id answers 404 on get, patch, delete, versions and latest', async () => {
      for (const id of [randomUUID(), 'not-a-uuid']) {
        expectError(await request('GET', `/assistants/${id}`), 404);
        expectError(
          await request('PATCH', `/assistants/${id}`, { body: { context: { a: 1 } } }),
          404,
        );
        expectError(await request('DELETE', `/assistants/${id}`), 404);
        expectError(await request('POST', `/assistants/${id}/versions`, { body: {} }), 404);
        expectError(
          await request('POST', `/assistants/${id}/latest`, { body: { version: 1 } }),
          404,
        );
      }
    });

    it('a run naming an unknown assistant or graph answers 404', async () => {
      const threadId = (await suite.client.threads.create()).thread_id;
      for (const assistantId of [randomUUID(), 'no-such-graph']) {
        const body = { assistant_id: assistantId, input: {} };
        expectError(await request('POST', `/threads/${threadId}/runs`, { body }), 404);
        expectError(await request('POST', `/threads/${threadId}/runs/wait`, { body }), 404);
        expectError(await request('POST', `/threads/${threadId}/runs/stream`, { body }), 404);
        expectError(await request('POST', '/runs', { body }), 404);
        expectError(await request('POST', '/runs/wait', { body }), 404);
        expectError(await request('POST', '/runs/stream', { body }), 404);
      }
      expect(await suite.client.runs.list(threadId)).toEqual([]);
    });

    it('creating an assistant on an unknown graph answers 404', async () => {
      expectError(
        await request('POST', '/assistants', { body: { graph_id: 'no-such-graph' } }),
        404,
      );
    });

    it('an unknown route answers 404 with a detail', async () => {
      expectError(await request('GET', '/no-such-route'), 404);
    });
  });

  describe('malformed bodies', () => {
    let threadId: string;
    let assistantId: string;

    beforeAll(async () => {
      threadId = (await suite.client.threads.create()).thread_id;
      assistantId = (await suite.client.assistants.create({ graphId: 'agent' })).assistant_id;
    });

    it('invalid JSON text answers 400 with a detail', async () => {
      const broken = '{"assistant_id": "agent",';
      for (const [method, path] of [
        ['POST', '/threads'],
        ['POST', '/threads/search'],
        ['PATCH', `/threads/${threadId}`],
        ['POST', `/threads/${threadId}/runs`],
        ['POST', `/threads/${threadId}/runs/stream`],
        ['POST', '/runs/wait'],
        ['POST', '/assistants'],
        ['POST', '/assistants/search'],
        ['PATCH', `/assistants/${assistantId}`],
      ] as const) {
        expectError(await request(method, path, { body: broken }), 400);
      }
    });

    it('a field no endpoint knows answers 422 naming it, in bodies and queries, never dropped', async () => {
      expectValidationError(
        await request('POST', '/threads', { body: { metadata: {}, colour: 'blue' } }),
        'colour',
      );
      expectValidationError(
        await request('POST', '/runs/wait', {
          body: { assistant_id: 'custom', input: { steps: 1 }, interupt_before: ['count'] },
        }),
        'interupt_before',
      );
      expectValidationError(await request('GET', '/assistants/agent/graph?xrey=true'), 'xrey');
    });

    it('wrong types in a run body answer 422 with {loc, msg, type} issues', async () => {
      const path = `/threads/${threadId}/runs`;
      expectValidationError(
        await request('POST', path, { body: { assistant_id: 5 } }),
        'assistant_id',
      );
      expectValidationError(
        await request('POST', path, { body: { assistant_id: 'agent', metadata: 'x' } }),
        'metadata',
      );
      expectValidationError(
        await request('POST', path, { body: { assistant_id: 'agent', stream_mode: 'nope' } }),
        'stream_mode',
      );
      expectValidationError(
        await request('POST', path, {
          body: { assistant_id: 'agent', stream_mode: ['values', 7] },
        }),
        'stream_mode',
      );
      expectValidationError(
        await request('POST', path, { body: { assistant_id: 'agent', config: [] } }),
        'config',
      );
      expectValidationError(
        await request('POST', '/runs/stream', {
          body: { assistant_id: 'agent', stream_mode: 'nope' },
        }),
        'stream_mode',
      );
      expect(await suite.client.runs.list(threadId)).toEqual([]);
    });

    it('wrong types in thread and assistant bodies answer 422', async () => {
      expectValidationError(
        await request('POST', '/threads', { body: { metadata: 'x' } }),
        'metadata',
      );
      expectValidationError(
        await request('POST', '/threads', { body: { thread_id: 'not-a-uuid' } }),
        'thread_id',
      );
      expectValidationError(
        await request('POST', '/threads', { body: { if_exists: 'maybe' } }),
        'if_exists',
      );
      expectValidationError(
        await request('PATCH', `/threads/${threadId}`, { body: { metadata: 'x' } }),
        'metadata',
      );
      expectValidationError(
        await request('POST', '/threads/search', { body: { limit: 'many' } }),
        'limit',
      );
      expectValidationError(
        await request('POST', '/threads/search', { body: { status: 'sleepy' } }),
        'status',
      );
      expectValidationError(
        await request('POST', '/assistants', { body: { graph_id: 5 } }),
        'graph_id',
      );
      expectValidationError(
        await request('POST', '/assistants', { body: { graph_id: 'agent', context: 'x' } }),
        'context',
      );
      expectValidationError(
        await request('PATCH', `/assistants/${assistantId}`, { body: { metadata: [1] } }),
        'metadata',
      );
      expectValidationError(
        await request('POST', `/assistants/${assistantId}/latest`, { body: { version: 'two' } }),
        'version',
      );
      expectValidationError(
        await request('POST', '/assistants/search', { body: { offset: -1 } }),
        'offset',
      );
      expect((await suite.client.assistants.get(assistantId)).version).toBe(1);
    });

    it('wrong query parameters answer 422 with issues located in the query, not the body', async () => {
      const answer = await request('GET', `/threads/${threadId}/runs?status=sleepy`);
      expectValidationError(answer, 'status');
      const issues = (answer.json as { detail: ValidationIssue[] }).detail;
      expect(issues.map((issue) => issue.loc)).toContainEqual(['query', 'status']);

      const history = await request('GET', `/threads/${threadId}/history?limit=0`);
      expectValidationError(history, 'limit');
      expect((history.json as { detail: ValidationIssue[] }).detail[0]?.loc).toEqual([
        'query',
        'limit',
      ]);
    });

    it('an empty body where assistant_id is required answers 422 naming assistant_id', async () => {
      expectValidationError(
        await request('POST', `/threads/${threadId}/runs`, { body: {} }),
        'assistant_id',
      );
      expectValidationError(await request('POST', '/runs/wait', { body: {} }), 'assistant_id');
      expectValidationError(await request('POST', '/runs/stream', { body: {} }), 'assistant_id');
      expectValidationError(
        await request('POST', `/threads/${threadId}/runs/stream`, { body: {} }),
        'assistant_id',
      );
      // No body at all.
      expectValidationError(await request('POST', `/threads/${threadId}/runs`), 'assistant_id');
      expectValidationError(await request('POST', '/assistants', { body: {} }), 'graph_id');
      expectValidationError(
        await request('POST', `/assistants/${assistantId}/latest`, { body: {} }),
        'version',
      );
    });

    it.each([['[]'], ['"agent"'], ['5'], ['null'], ['true']])(
      'a JSON body that is no object (%s) answers 400 or 422 with a detail',
      async (text) => {
        for (const path of [`/threads/${threadId}/runs`, '/assistants']) {
          const answer = await request('POST', path, { body: text });
          expect([400, 422]).toContain(answer.status);
          expectError(answer, answer.status);
        }
      },
    );

    it('a body of another media type answers 4xx with a detail', async () => {
      const answer = await request('POST', '/threads', {
        body: 'metadata=x',
        contentType: 'text/plain',
      });
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expectError(answer, answer.status);
    });
  });

  describe('runs', () => {
    let threadId: string;
    let runId: string;

    beforeAll(async () => {
      threadId = (await suite.client.threads.create()).thread_id;
      const run = await suite.client.runs.create(threadId, 'custom', { input: { steps: 2 } });
      runId = run.run_id;
      await suite.client.runs.join(threadId, runId);
    });

    it('an unknown run of an existing thread answers 404', async () => {
      expectError(await request('GET', `/threads/${threadId}/runs/${randomUUID()}`), 404);
      expectError(await request('GET', `/threads/${threadId}/runs/not-a-uuid`), 404);
    });

    it('join of an unknown run answers 404', async () => {
      expectError(await request('GET', `/threads/${threadId}/runs/${randomUUID()}/join`), 404);
      expectError(await request('GET', `/threads/${threadId}/runs/not-a-uuid/join`), 404);
      expectError(await request('GET', `/threads/${threadId}/runs/${randomUUID()}/stream`), 404);
    });

    it('a run is not found under another thread', async () => {
      const otherThread = (await suite.client.threads.create()).thread_id;
      expectError(await request('GET', `/threads/${otherThread}/runs/${runId}`), 404);
      expectError(await request('GET', `/threads/${otherThread}/runs/${runId}/join`), 404);
      expectError(await request('GET', `/threads/${otherThread}/runs/${runId}/stream`), 404);
      expectError(await request('POST', `/threads/${otherThread}/runs/${runId}/cancel`), 404);
    });

    it('the run itself is found, so the 404s above are about the ids', async () => {
      const answer = await request('GET', `/threads/${threadId}/runs/${runId}`);
      expect(answer.status).toBe(200);
      expect(answer.json).toMatchObject({ run_id: runId, thread_id: threadId, status: 'success' });
      const joined = await request('GET', `/threads/${threadId}/runs/${runId}/join`);
      expect(joined.status).toBe(200);
      expect(joined.json).toMatchObject({ result: 'The sum of 1..2 is 3.' });
    });

    it.each([['abc'], ['1.5'], ['-2'], ['12abc'], ['1e22'], ['0x10'], ['99999999999999999999']])(
      'Last-Event-ID %s on a join stream answers 400 with a detail',
      async (lastEventId) => {
        const answer = await request('GET', `/threads/${threadId}/runs/${runId}/stream`, {
          headers: { 'last-event-id': lastEventId },
        });
        expectError(answer, 400);
      },
    );
  });

  describe('resuming past the end of a finished run', () => {
    it.each([['1000'], ['5'], ['999999999999999']])(
      'Last-Event-ID %s ends the stream at once instead of waiting for events that cannot come',
      async (lastEventId) => {
        const { thread_id } = await suite.client.threads.create();
        const run = await suite.client.runs.create(thread_id, 'custom', { input: { steps: 2 } });
        await suite.client.runs.join(thread_id, run.run_id);
        const response = await fetch(
          `${suite.runtime.url}/threads/${thread_id}/runs/${run.run_id}/stream`,
          {
            headers: { 'x-api-key': suite.runtime.apiKey, 'last-event-id': lastEventId },
            signal: AbortSignal.timeout(5_000),
          },
        );
        expect(response.status).toBe(200);
        const body = await response.text();
        expect(body).not.toContain('event: error');
      },
    );
  });

  it('no request in this file was answered with a 5xx', () => {
    expect(answers.length).toBeGreaterThan(100);
    const failures = answers
      .filter((answer) => answer.status >= 500)
      .map((answer) => `${answer.method} ${answer.path} -> ${answer.status} ${answer.text}`);
    expect(failures).toEqual([]);
  });
});
