import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { Client, type ThreadStream } from '@langchain/langgraph-sdk';
import { WebSocket } from 'ws';
import { readSse, type SseEvent } from '../../support/sse.js';
import { apiRequest, runtimeSuite } from '../../support/runtime-suite.js';
import { queryRows } from '../../support/database-query.js';
import { startRuntime } from '../../support/runtime-process.js';
import { createTestDatabase } from '../../support/test-database.js';

/** A protocol event as the wire carries it. */
interface ProtocolEvent {
  readonly type: 'event';
  readonly event_id: string;
  readonly seq: number;
  readonly method: string;
  readonly params: { namespace: string[]; node?: string; data: Record<string, unknown> };
}

const QUESTION = { messages: [{ role: 'user', content: 'Weather in Oslo?' }] };
const EVERY_CHANNEL = [
  'values',
  'updates',
  'messages',
  'tools',
  'lifecycle',
  'input',
  'checkpoints',
  'tasks',
  'custom',
];

const isRootEnd = (event: ProtocolEvent): boolean =>
  event.method === 'lifecycle' &&
  event.params.namespace.length === 0 &&
  ['completed', 'failed', 'interrupted'].includes(String(event.params.data.event));

function openSocket(url: string, protocols: string[]): Promise<{ socket: WebSocket }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, protocols);
    socket.once('open', () => {
      resolve({ socket });
    });
    socket.once('unexpected-response', (_request, response) => {
      reject(new Error(`upgrade refused: ${response.statusCode}`));
    });
    socket.once('error', reject);
  });
}

/** The HTTP status that refused a WebSocket upgrade. */
function refusal(url: string, protocols: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, protocols);
    socket.once('open', () => {
      socket.close();
      reject(new Error('the upgrade was accepted'));
    });
    socket.once('unexpected-response', (_request, response) => {
      resolve(response.statusCode ?? 0);
      socket.terminate();
    });
    socket.once('error', () => undefined);
  });
}

describe('thread streaming v2 (commands, SSE event streams, WebSockets)', () => {
  // examples/agent's graphs, and one compiled with stream transformers.
  const suite = runtimeSuite('thread_streaming_v2', undefined, {
    graphConfig: resolve('test/fixtures/protocol-app/langgraph.json'),
  });
  const request = (): ReturnType<typeof apiRequest> => apiRequest(suite);

  function command(threadId: string, method: string, params: Record<string, unknown>, id = 1) {
    return request()('POST', `/threads/${threadId}/commands`, { id, method, params });
  }

  async function commandResult(
    threadId: string,
    method: string,
    params: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    const response = await command(threadId, method, params);
    const body = (await response.json()) as { type: string; result: Record<string, unknown> };
    expect({ status: response.status, type: body.type, body }).toMatchObject({
      status: 200,
      type: 'success',
    });
    return body.result;
  }

  /**
   * Opens a thread's event stream; resolves once its headers came, when the server has fixed
   * where it reads from. `read` then takes its events until `until` says stop.
   */
  async function openEvents(
    threadId: string,
    body: Record<string, unknown>,
  ): Promise<{ read: (until?: (event: ProtocolEvent) => boolean) => Promise<ProtocolEvent[]> }> {
    const response = await request()('POST', `/threads/${threadId}/stream/events`, body);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    return {
      read: async (until = isRootEnd) => {
        const records = await readSse(response, {
          stopAfter: (record: SseEvent) => until(record.data as ProtocolEvent),
        });
        for (const record of records) {
          const event = record.data as ProtocolEvent;
          expect(record.id).toBe(event.event_id);
          expect(record.event).toBe(event.method);
        }
        return records.map((record) => record.data as ProtocolEvent);
      },
    };
  }

  /** A thread's protocol events until `until` says stop. */
  async function events(
    threadId: string,
    body: Record<string, unknown>,
    until: (event: ProtocolEvent) => boolean = isRootEnd,
  ): Promise<ProtocolEvent[]> {
    return (await openEvents(threadId, body)).read(until);
  }

  let socketsOpened = 0;

  /**
   * A ThreadStream over SSE (the suite's client, with the key), or over a WebSocket: the SDK opens
   * none with a key in its default headers, so a Node client brings its own socket with the key.
   */
  function streamOver(transport: 'sse' | 'websocket', assistantId: string): ThreadStream {
    if (transport === 'sse') return suite.client.threads.stream({ assistantId, transport });
    const keyless = new Client({ apiUrl: suite.runtime.url });
    return keyless.threads.stream({
      assistantId,
      transport,
      webSocketFactory: (url: string) => {
        socketsOpened += 1;
        return new WebSocket(url, { headers: { 'x-api-key': suite.runtime.apiKey } }) as never;
      },
    });
  }

  describe.each(['sse', 'websocket'] as const)("the SDK's ThreadStream over %s", (transport) => {
    const stream = (assistantId: string): ThreadStream => streamOver(transport, assistantId);

    it('streams a run started with the SDK: messages as content blocks, tools, and its output', async () => {
      const thread = stream('agent');
      const texts: string[] = [];
      const reading = (async () => {
        for await (const message of thread.messages) texts.push(await message.text);
      })();
      await thread.run.start({ input: QUESTION });
      const output = (await thread.output) as { messages: unknown[] };
      expect(output.messages).toHaveLength(4);
      expect(texts).toContain('It is 21°C and sunny in Oslo.');
      expect(texts.at(-1)).toBe(
        'Here is what I found: It is 21°C and sunny in Oslo. (answered by fake-tool-caller)',
      );
      await thread.close();
      await reading;

      if (transport === 'websocket') expect(socketsOpened).toBeGreaterThan(0);
      // The run is an ordinary run of the thread.
      const runs = await suite.client.runs.list(thread.threadId);
      expect(runs.map((run) => run.status)).toEqual(['success']);
    });

    it('carries custom events', async () => {
      const custom = stream('custom');
      const written: unknown[] = [];
      const subscription = await custom.subscribe({ channels: ['custom'] });
      const reading = (async () => {
        for await (const event of subscription) {
          written.push((event as unknown as ProtocolEvent).params.data.payload);
          if (written.length === 4) break;
        }
      })();
      await custom.run.start({ input: { steps: 3 } });
      await custom.output;
      await reading;
      expect(written.map((payload) => (payload as { kind: string }).kind)).toEqual([
        'progress',
        'progress',
        'progress',
        'done',
      ]);
      await custom.close();
    });

    it('discovers a subgraph, with its own namespace and output', async () => {
      const thread = stream('subgraph');
      const found: { name: string; namespace: string[] }[] = [];
      const discovering = (async () => {
        for await (const subgraph of thread.subgraphs) found.push(subgraph);
      })();
      await thread.run.start({ input: { topic: 'tea' } });
      const output = (await thread.output) as { answer: string };
      expect(output.answer).toMatch(/^Report on tea: /);
      await thread.close();
      await discovering;
      expect(found.map((subgraph) => subgraph.name)).toEqual(['research']);
      expect(found[0]?.namespace[0]).toMatch(/^research:/);
    });

    it("surfaces the graph's stream transformers as thread.extensions", async () => {
      const thread = stream('stats');
      const started: unknown[] = [];
      const toolStarted = thread.extensions.toolStarted;
      if (!toolStarted) throw new Error('every extension name has a handle');
      const reading = (async () => {
        for await (const item of toolStarted) started.push(item);
      })();
      await thread.run.start({ input: { messages: [{ role: 'user', content: 'weather?' }] } });
      await expect(thread.extensions.toolCallCount).resolves.toBe(1);
      await reading;
      expect(started).toEqual(['weather']);
      await thread.close();
    });

    it('asks for input on an interrupt and resumes with input.respond', async () => {
      const thread = stream('interrupt');
      await thread.run.start({ input: { topic: 'tea' } });
      await thread.output;
      expect(thread.interrupted).toBe(true);
      const [interrupt] = thread.interrupts;
      expect(interrupt?.payload).toMatchObject({ question: 'Do you approve this draft?' });
      await thread.input.respond({
        namespace: [],
        interrupt_id: interrupt?.interruptId ?? '',
        response: true,
      });
      const runs = await suite.client.runs.list(thread.threadId);
      expect(runs).toHaveLength(2);
      await suite.client.runs.join(thread.threadId, runs[0]?.run_id ?? '');
      const state = await suite.client.threads.getState<{ published: string }>(thread.threadId);
      expect(state.values.published).toMatch(/^Published: A short note about tea/);
      await thread.close();
    });
  });

  it('tells every channel of a run, each event numbered in order, and ends the run once', async () => {
    const threadId = randomUUID();
    // The stream is open (its headers came) before the run starts: it sees all of it.
    const stream = await openEvents(threadId, { channels: EVERY_CHANNEL });
    const { run_id: runId } = await commandResult(threadId, 'run.start', {
      assistant_id: 'agent',
      input: QUESTION,
    });
    expect(runId).toMatch(/^[0-9a-f-]{36}$/);
    const all = await stream.read();
    const seqs = all.map((event) => event.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
    const methods = new Set(all.map((event) => event.method));
    for (const method of [
      'lifecycle',
      'values',
      'updates',
      'messages',
      'tools',
      'checkpoints',
      'tasks',
    ]) {
      expect({ method, present: methods.has(method) }).toEqual({ method, present: true });
    }
    expect(all[0]).toMatchObject({ method: 'lifecycle', params: { data: { event: 'running' } } });
    expect(all.filter(isRootEnd).map((event) => event.params.data.event)).toEqual(['completed']);
    const toolEvents = all
      .filter((event) => event.method === 'tools')
      .map((e) => e.params.data.event);
    expect(toolEvents).toEqual(['tool-started', 'tool-finished']);
    const blocks = all
      .filter((event) => event.method === 'messages')
      .map((event) => String(event.params.data.event));
    expect(blocks[0]).toBe('message-start');
    expect(blocks.filter((name) => name === 'message-start')).toHaveLength(
      blocks.filter((name) => name === 'message-finish').length,
    );
  });

  it('resumes from any seq of a finished run with exactly the events after it', async () => {
    const threadId = randomUUID();
    await commandResult(threadId, 'run.start', { assistant_id: 'agent', input: QUESTION });
    const [run] = await suite.client.runs.list(threadId);
    await suite.client.runs.join(threadId, run?.run_id ?? '');
    const whole = await events(threadId, { channels: EVERY_CHANNEL, since: 0 });
    expect(whole.length).toBeGreaterThan(20);
    for (const cut of [0, Math.floor(whole.length / 2), whole.length - 2]) {
      const since = whole[cut]?.seq ?? 0;
      const rest = await events(threadId, { channels: EVERY_CHANNEL, since });
      expect(rest.map((event) => event.event_id)).toEqual(
        whole.slice(cut + 1).map((event) => event.event_id),
      );
    }
    // A filtered replay is the same events, fewer of them.
    const lifecycle = await events(threadId, { channels: ['lifecycle'], since: 0 });
    expect(lifecycle.map((event) => event.event_id)).toEqual(
      whole.filter((event) => event.method === 'lifecycle').map((event) => event.event_id),
    );
  });

  it('carries a subgraph under its own namespace, and tells its tree', async () => {
    const threadId = randomUUID();
    await commandResult(threadId, 'run.start', {
      assistant_id: 'subgraph',
      input: { topic: 'tea' },
    });
    const all = await events(threadId, { channels: EVERY_CHANNEL, since: 0 });
    const inSubgraph = all.filter((event) => event.params.namespace[0]?.startsWith('research:'));
    expect(inSubgraph.map((event) => event.method)).toEqual(
      expect.arrayContaining(['lifecycle', 'updates', 'values']),
    );
    expect(
      inSubgraph.filter((event) => event.method === 'updates').map((e) => e.params.node),
    ).toEqual(['search', 'summarize']);
    // Namespaces filter by prefix ("research" matches "research:<task>"), depth 0 keeps only it.
    const onlySubgraph = await events(
      threadId,
      {
        channels: ['updates'],
        namespaces: [['research']],
        depth: 0,
        since: 0,
      },
      (event) => event.params.node === 'summarize',
    );
    expect(onlySubgraph.map((event) => event.params.node)).toEqual(['search', 'summarize']);
    const { tree } = (await commandResult(threadId, 'agent.getTree', {})) as {
      tree: { graph_name: string; status: string; children: { graph_name: string }[] };
    };
    expect(tree).toMatchObject({ graph_name: 'subgraph', status: 'completed' });
    expect(tree.children.map((child) => child.graph_name)).toEqual(['research']);
  });

  it('shows runs started the classic way, and queues runs started with enqueue', async () => {
    const thread = await suite.client.threads.create();
    const threadId = thread.thread_id;
    const stream = await openEvents(threadId, { channels: ['lifecycle', 'values'] });
    await suite.client.runs.wait(threadId, 'custom', { input: { steps: 2 } });
    const classic = await stream.read();
    expect(classic.at(-1)?.params.data.event).toBe('completed');
    expect(classic.filter((event) => event.method === 'values').at(-1)?.params.data).toMatchObject({
      total: 3,
    });

    const first = await commandResult(threadId, 'run.start', {
      assistant_id: 'custom',
      input: { steps: 3, delay_ms: 150 },
      multitaskStrategy: 'enqueue',
    });
    const second = await commandResult(threadId, 'run.start', {
      assistant_id: 'custom',
      input: { steps: 1 },
      multitaskStrategy: 'enqueue',
    });
    await suite.client.runs.join(threadId, String(second.run_id));
    const runs = await suite.client.runs.list(threadId);
    expect(runs.map((run) => [run.run_id, run.status])).toEqual([
      [second.run_id, 'success'],
      [first.run_id, 'success'],
      [expect.any(String), 'success'],
    ]);
    const slow = await commandResult(threadId, 'run.start', {
      assistant_id: 'custom',
      input: { steps: 100, delay_ms: 50 },
    });
    const refused = await command(threadId, 'run.start', {
      assistant_id: 'custom',
      input: { steps: 1 },
      multitaskStrategy: 'reject',
    });
    expect(await refused.json()).toMatchObject({ type: 'error', error: 'invalid_argument' });
    await suite.client.runs.cancel(threadId, String(slow.run_id), true);
  });

  it('serves state.get, state.listCheckpoints and state.fork', async () => {
    const threadId = randomUUID();
    await commandResult(threadId, 'run.start', { assistant_id: 'custom', input: { steps: 2 } });
    const [run] = await suite.client.runs.list(threadId);
    await suite.client.runs.join(threadId, run?.run_id ?? '');
    const state = await commandResult(threadId, 'state.get', { namespace: [], keys: ['total'] });
    expect(state.values).toEqual({ total: 3 });
    expect(state.checkpoint).toMatchObject({ id: expect.any(String) });
    const { checkpoints } = (await commandResult(threadId, 'state.listCheckpoints', {
      limit: 3,
    })) as {
      checkpoints: { id: string; step: number; timestamp: string }[];
    };
    expect(checkpoints).toHaveLength(3);
    expect(checkpoints[0]?.id).toBe((state.checkpoint as { id: string }).id);
    expect(checkpoints.map((checkpoint) => checkpoint.step)).toEqual(
      [...checkpoints.map((checkpoint) => checkpoint.step)].sort((a, b) => b - a),
    );
    const first = checkpoints.at(-1)?.id ?? '';
    const forked = await commandResult(threadId, 'state.fork', {
      checkpoint_id: first,
      input: { steps: 5 },
    });
    expect(forked).toMatchObject({ thread_id: threadId, run_id: expect.any(String) });
    await suite.client.runs.join(threadId, String(forked.run_id));
    const after = await suite.client.threads.getState<{ total: number }>(threadId);
    expect(after.values.total).toBe(15);
  });

  it('answers bad commands with the protocol error object, never a 500', async () => {
    const threadId = randomUUID();
    const cases: [string, Record<string, unknown>, string][] = [
      ['no.such.method', {}, 'unknown_command'],
      ['run.start', { input: {} }, 'invalid_argument'],
      ['run.start', { assistant_id: 'nope', input: {} }, 'invalid_argument'],
      ['input.respond', { interrupt_id: 'x', response: 1, namespace: [] }, 'no_such_run'],
      ['state.fork', { checkpoint_id: 'missing' }, 'no_such_checkpoint'],
      ['state.listCheckpoints', { limit: -1 }, 'invalid_argument'],
      ['state.get', { namespace: 'root' }, 'invalid_argument'],
    ];
    for (const [method, params, code] of cases) {
      const response = await command(threadId, method, params, 7);
      const body = (await response.json()) as Record<string, unknown>;
      expect({ method, status: response.status, body }).toMatchObject({
        method,
        status: 200,
        body: { type: 'error', id: 7, error: code, message: expect.any(String) },
      });
    }
    await commandResult(threadId, 'run.start', { assistant_id: 'custom', input: { steps: 1 } });
    const [run] = await suite.client.runs.list(threadId);
    await suite.client.runs.join(threadId, run?.run_id ?? '');
    const unknownInterrupt = await command(threadId, 'input.respond', {
      interrupt_id: 'not-open',
      response: 1,
      namespace: [],
    });
    expect(await unknownInterrupt.json()).toMatchObject({ error: 'no_such_interrupt' });

    for (const body of [null, [], { method: 'run.start' }, { id: -1, method: 'x' }, { id: 1 }]) {
      const response = await request()('POST', `/threads/${threadId}/commands`, body);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({
        type: 'error',
        id: null,
        error: 'invalid_argument',
        detail: expect.any(String),
      });
    }
    const badFilter = await request()('POST', `/threads/${threadId}/stream/events`, {
      channels: ['nonsense'],
    });
    expect(badFilter.status).toBe(422);
    expect(await badFilter.json()).toMatchObject({
      detail: [expect.objectContaining({ loc: ['body', 'channels'] })],
    });
    const noKey = await fetch(`${suite.runtime.url}/threads/${threadId}/commands`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 1, method: 'state.get', params: {} }),
    });
    expect(noKey.status).toBe(401);
  });
  it('opens a WebSocket with a single-use ticket in place of the key, as a browser must', async () => {
    const threadId = randomUUID();
    const issue = await request()('POST', `/threads/${threadId}/stream/tickets`);
    expect(issue.status).toBe(200);
    const { ticket, expires_at: expiresAt } = (await issue.json()) as {
      ticket: string;
      expires_at: string;
    };
    expect(Date.parse(expiresAt)).toBeGreaterThan(Date.now());
    const url = `${suite.runtime.url.replace('http', 'ws')}/threads/${threadId}/stream/events`;
    const opened = await openSocket(url, [`berth.ticket.${ticket}`]);
    expect(opened.socket.protocol).toBe(`berth.ticket.${ticket}`);
    const received: Record<string, unknown>[] = [];
    const ended = new Promise<void>((resolve) => {
      opened.socket.on('message', (data: Buffer) => {
        const message = JSON.parse(data.toString()) as Record<string, unknown>;
        received.push(message);
        if (isRootEnd(message as unknown as ProtocolEvent)) resolve();
      });
    });
    opened.socket.send(
      JSON.stringify({
        id: 1,
        method: 'subscription.subscribe',
        params: { channels: ['lifecycle'] },
      }),
    );
    opened.socket.send(
      JSON.stringify({
        id: 2,
        method: 'run.start',
        params: { assistant_id: 'custom', input: { steps: 1 } },
      }),
    );
    opened.socket.send('not json');
    await ended;
    expect(received).toContainEqual({
      type: 'success',
      id: 1,
      result: { subscription_id: 'sub-1', replayed_events: 0 },
    });
    expect(received).toContainEqual(
      expect.objectContaining({ type: 'success', id: 2, result: { run_id: expect.any(String) } }),
    );
    expect(received).toContainEqual(
      expect.objectContaining({ type: 'error', id: null, error: 'invalid_argument' }),
    );
    opened.socket.close();

    // A later subscriber is told how many events of the thread's latest run it is sent first.
    const later = new WebSocket(url, { headers: { 'x-api-key': suite.runtime.apiKey } });
    const replayed: Record<string, unknown>[] = [];
    const threeMessages = new Promise<void>((resolve) => {
      later.on('message', (data: Buffer) => {
        replayed.push(JSON.parse(data.toString()) as Record<string, unknown>);
        if (replayed.length === 3) resolve();
      });
    });
    await new Promise((resolve) => later.once('open', resolve));
    later.send(
      JSON.stringify({
        id: 5,
        method: 'subscription.subscribe',
        params: { channels: ['lifecycle'] },
      }),
    );
    await threeMessages;
    expect(replayed[0]).toEqual({
      type: 'success',
      id: 5,
      result: { subscription_id: 'sub-1', replayed_events: 2 },
    });
    expect(
      replayed.slice(1).map((event) => (event.params as { data: { event: string } }).data.event),
    ).toEqual(['running', 'completed']);
    later.close();

    // A ticket opens one socket; none, a used one, or one for another thread opens nothing.
    expect(await refusal(url, [`berth.ticket.${ticket}`])).toBe(401);
    expect(await refusal(url, [])).toBe(401);
    const other = (await (
      await request()('POST', `/threads/${randomUUID()}/stream/tickets`)
    ).json()) as { ticket: string };
    expect(await refusal(url, [`berth.ticket.${other.ticket}`])).toBe(401);
    const plain = await request()('GET', `/threads/${threadId}/stream/events`);
    expect(plain.status).toBe(426);
  });

  it("opens any thread's socket with a browser ticket until it expires, on its own deployment only", async () => {
    const issue = await request()('POST', '/stream/tickets');
    expect(issue.status).toBe(200);
    const { ticket, expires_at: expiresAt } = (await issue.json()) as {
      ticket: string;
      expires_at: string;
    };
    expect(Date.parse(expiresAt)).toBeGreaterThan(Date.now() + 5 * 60_000);
    const offered = [`berth.ticket.${ticket}`];
    const socketUrl = (base: string, threadId: string): string =>
      `${base.replace('http', 'ws')}/threads/${threadId}/stream/events`;
    // Reused, on one thread and another: each socket answers its commands.
    const [first, second] = [randomUUID(), randomUUID()];
    for (const threadId of [first, second, first]) {
      const { socket } = await openSocket(socketUrl(suite.runtime.url, threadId), offered);
      expect(socket.protocol).toBe(offered[0]);
      const answered = new Promise<unknown>((resolve) => {
        socket.once('message', (data: Buffer) => {
          resolve(JSON.parse(data.toString()));
        });
      });
      socket.send(
        JSON.stringify({
          id: 1,
          method: 'subscription.subscribe',
          params: { channels: ['values'] },
        }),
      );
      expect(await answered).toMatchObject({ type: 'success', id: 1 });
      socket.close();
    }

    // Another deployment (its own database, the same key) knows neither kind of ticket.
    const database = await createTestDatabase('thread_streaming_v2_other');
    const other = await startRuntime({ databaseUrl: database.url, apiKey: suite.runtime.apiKey });
    try {
      expect(await refusal(socketUrl(other.url, first), offered)).toBe(401);
      const threadTicket = (await (
        await request()('POST', `/threads/${first}/stream/tickets`)
      ).json()) as { ticket: string };
      expect(
        await refusal(socketUrl(other.url, first), [`berth.ticket.${threadTicket.ticket}`]),
      ).toBe(401);
    } finally {
      await other.stop();
      await database.drop();
    }

    // Expired, it opens nothing; without the key none is issued.
    await queryRows(
      suite.database.url,
      `update socket_tickets set expires_at = now() - interval '1 second' where reusable`,
    );
    expect(await refusal(socketUrl(suite.runtime.url, first), offered)).toBe(401);
    const anonymous = await fetch(`${suite.runtime.url}/stream/tickets`, { method: 'POST' });
    expect(anonymous.status).toBe(401);
    expect(suite.runtime.output()).not.toContain(ticket);
  }, 120_000);
});
