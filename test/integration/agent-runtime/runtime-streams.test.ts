import { describe, expect, it } from '@jest/globals';
import { type StreamMode } from '@langchain/langgraph-sdk';
import { readSse } from '../../support/sse.js';
import { runtimeSuite } from '../../support/runtime-suite.js';

/** One SSE record as the SDK yields it (and as test/support/sse.ts parses it). */
interface WireEvent {
  readonly id: string | undefined;
  readonly event: string;
  readonly data: unknown;
}

interface WireMessage {
  readonly type: string;
  readonly content: unknown;
  readonly id?: string;
  readonly tool_calls?: { name: string }[];
}

type MessageMetadata = Record<string, unknown>;

const QUESTION = { messages: [{ role: 'user', content: 'What is the weather in Oslo?' }] };

async function collect(stream: AsyncIterable<unknown>): Promise<WireEvent[]> {
  const events: WireEvent[] = [];
  for await (const part of stream) {
    const { id, event, data } = part as WireEvent;
    events.push({ id, event, data });
  }
  return events;
}

const names = (events: readonly WireEvent[]): string[] => events.map((event) => event.event);
const distinctNames = (events: readonly WireEvent[]): string[] => [...new Set(names(events))];
const ofEvent = (events: readonly WireEvent[], name: string): WireEvent[] =>
  events.filter((event) => event.event === name);
const messagesOf = (values: unknown): WireMessage[] =>
  (values as { messages: WireMessage[] }).messages;

/** The `metadata` record every stream starts with: the run's id and attempt 1. */
function expectMetadataFirst(events: readonly WireEvent[], runId?: string): void {
  expect(events[0]?.event).toBe('metadata');
  const data = events[0]?.data as { run_id: string; attempt: number };
  expect(data.attempt).toBe(1);
  expect(data.run_id).toMatch(/^[0-9a-f-]{36}$/);
  if (runId !== undefined) expect(data.run_id).toBe(runId);
  expect(ofEvent(events, 'metadata')).toHaveLength(1);
}

function expectConsecutiveIds(events: readonly WireEvent[], from = 0): void {
  expect(events.map((event) => event.id)).toEqual(events.map((_, index) => String(from + index)));
}

describe('agent runtime streaming over HTTP', () => {
  const suite = runtimeSuite('runtime_streams');

  function api(
    path: string,
    init: { body?: unknown; headers?: Record<string, string>; signal?: AbortSignal } = {},
  ): Promise<Response> {
    const headers: Record<string, string> = { 'x-api-key': suite.runtime.apiKey, ...init.headers };
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    return fetch(`${suite.runtime.url}${path}`, {
      method: init.body === undefined ? 'GET' : 'POST',
      headers,
      body: init.body === undefined ? null : JSON.stringify(init.body),
      signal: init.signal ?? null,
    });
  }

  /** Streams a run of `graph` on a new thread with the SDK; returns its events and ids. */
  async function streamOnThread(
    graph: string,
    payload: { input: Record<string, unknown>; streamMode?: StreamMode | StreamMode[] } & {
      streamSubgraphs?: boolean;
    },
  ): Promise<{ threadId: string; runId: string | undefined; events: WireEvent[] }> {
    const thread = await suite.client.threads.create();
    let runId: string | undefined;
    const events = await collect(
      suite.client.runs.stream(thread.thread_id, graph, {
        ...payload,
        onRunCreated: (created) => {
          runId = created.run_id;
        },
      }),
    );
    return { threadId: thread.thread_id, runId, events };
  }

  describe('each stream mode on the agent graph', () => {
    it('values: the full state after each step, ending with the answer', async () => {
      const { threadId, runId, events } = await streamOnThread('agent', {
        input: QUESTION,
        streamMode: 'values',
      });
      expectMetadataFirst(events, runId);
      expect(distinctNames(events)).toEqual(['metadata', 'values']);
      const values = ofEvent(events, 'values').map((event) => messagesOf(event.data));
      expect(values.map((messages) => messages.map((m) => m.type))).toEqual([
        ['human'],
        ['human', 'ai'],
        ['human', 'ai', 'tool'],
        ['human', 'ai', 'tool', 'ai'],
      ]);
      const state = await suite.client.threads.getState(threadId);
      expect(values.at(-1)).toEqual(messagesOf(state.values));
    });

    it('updates: one event per node update, keyed by node name', async () => {
      const { runId, events } = await streamOnThread('agent', {
        input: QUESTION,
        streamMode: 'updates',
      });
      expectMetadataFirst(events, runId);
      expect(distinctNames(events)).toEqual(['metadata', 'updates']);
      const updates = ofEvent(events, 'updates').map((event) => event.data as object);
      expect(updates.map((update) => Object.keys(update))).toEqual([
        ['agent'],
        ['tools'],
        ['agent'],
      ]);
      const [first, second, third] = updates as {
        [node: string]: { messages: WireMessage[] };
      }[];
      expect(first?.agent?.messages[0]?.tool_calls?.[0]?.name).toBe('get_weather');
      expect(second?.tools?.messages[0]?.type).toBe('tool');
      expect(third?.agent?.messages[0]?.content).toContain('Oslo');
    });

    it('messages-tuple: [message chunk, metadata] tuples named messages, tokens in several chunks', async () => {
      const { threadId, runId, events } = await streamOnThread('agent', {
        input: QUESTION,
        streamMode: 'messages-tuple',
      });
      expectMetadataFirst(events, runId);
      expect(distinctNames(events)).toEqual(['metadata', 'messages']);
      const tuples = ofEvent(events, 'messages').map(
        (event) => event.data as [WireMessage, MessageMetadata],
      );
      for (const tuple of tuples) {
        expect(Array.isArray(tuple)).toBe(true);
        expect(tuple).toHaveLength(2);
        const [message, metadata] = tuple;
        expect(typeof message.type).toBe('string');
        expect(typeof metadata.langgraph_node).toBe('string');
        expect(metadata.graph_node).toBe(metadata.langgraph_node);
        expect(metadata.run_id).toBe(runId);
        expect(metadata.thread_id).toBe(threadId);
      }
      expect(new Set(tuples.map(([, metadata]) => metadata.graph_node))).toEqual(
        new Set(['agent', 'tools']),
      );

      // The answer (the last AI message of the state) came token by token, in one message id.
      const state = await suite.client.threads.getState(threadId);
      const answer = messagesOf(state.values).at(-1);
      expect(answer?.type).toBe('ai');
      const answerChunks = tuples
        .filter(([message, metadata]) => metadata.graph_node === 'agent' && message.content !== '')
        .map(([message]) => message);
      expect(answerChunks.length).toBeGreaterThan(3);
      expect(new Set(answerChunks.map((message) => message.id)).size).toBe(1);
      expect(answerChunks.map((message) => message.content).join('')).toBe(answer?.content);
    });

    it('debug: checkpoints, tasks and task results with node names and state', async () => {
      const { runId, events } = await streamOnThread('agent', {
        input: QUESTION,
        streamMode: 'debug',
      });
      expectMetadataFirst(events, runId);
      expect(distinctNames(events)).toEqual(['metadata', 'debug']);
      const debug = ofEvent(events, 'debug').map(
        (event) =>
          event.data as {
            type: string;
            step: number;
            payload: { name?: string; values?: unknown };
          },
      );
      expect(new Set(debug.map((item) => item.type))).toEqual(
        new Set(['checkpoint', 'task', 'task_result']),
      );
      for (const item of debug) expect(typeof item.step).toBe('number');
      const taskNames = debug
        .filter((item) => item.type === 'task')
        .map((item) => item.payload.name);
      expect(taskNames).toEqual(['agent', 'tools', 'agent']);
      const lastCheckpoint = debug.filter((item) => item.type === 'checkpoint').at(-1);
      expect(messagesOf(lastCheckpoint?.payload.values).map((m) => m.type)).toEqual([
        'human',
        'ai',
        'tool',
        'ai',
      ]);
    });

    it('events: the callback events of the graph, its nodes and the model', async () => {
      const { runId, events } = await streamOnThread('agent', {
        input: QUESTION,
        streamMode: 'events',
      });
      expectMetadataFirst(events, runId);
      expect(distinctNames(events)).toEqual(['metadata', 'events']);
      const callbackEvents = ofEvent(events, 'events').map(
        (event) => event.data as { event: string; name: string; run_id: string },
      );
      const kinds = new Set(callbackEvents.map((event) => event.event));
      for (const kind of [
        'on_chain_start',
        'on_chain_end',
        'on_chat_model_start',
        'on_chat_model_stream',
        'on_chat_model_end',
        'on_tool_start',
        'on_tool_end',
      ]) {
        expect(kinds).toContain(kind);
      }
      expect(callbackEvents[0]?.event).toBe('on_chain_start');
      expect(callbackEvents.at(-1)?.event).toBe('on_chain_end');
      expect(callbackEvents.filter((event) => event.event === 'on_tool_start')[0]?.name).toBe(
        'get_weather',
      );
    });

    it('custom: what the custom graph writes, one event per step', async () => {
      const { runId, events } = await streamOnThread('custom', {
        input: { steps: 5 },
        streamMode: 'custom',
      });
      expectMetadataFirst(events, runId);
      expect(names(events)).toEqual(['metadata', ...Array<string>(6).fill('custom')]);
      expect(ofEvent(events, 'custom').map((event) => event.data)).toEqual([
        ...[1, 2, 3, 4, 5].map((step) => ({ kind: 'progress', node: 'count', step, of: 5 })),
        { kind: 'done', node: 'finish', step: 5, of: 5 },
      ]);
    });

    it('several modes at once, interleaved in the order they happened', async () => {
      const { runId, events } = await streamOnThread('custom', {
        input: { steps: 3 },
        streamMode: ['values', 'updates', 'custom'],
      });
      expectMetadataFirst(events, runId);
      expect(names(events)).toEqual([
        'metadata',
        'values',
        'custom',
        'custom',
        'custom',
        'updates',
        'values',
        'custom',
        'updates',
        'values',
      ]);
      expect(ofEvent(events, 'updates').map((event) => Object.keys(event.data as object))).toEqual([
        ['count'],
        ['finish'],
      ]);
      expect(ofEvent(events, 'values').at(-1)?.data).toEqual({
        steps: 3,
        total: 6,
        result: 'The sum of 1..3 is 6.',
      });
    });

    it('several modes on the agent graph: every mode shows up, after one metadata', async () => {
      const modes: StreamMode[] = ['values', 'updates', 'messages-tuple', 'debug', 'events'];
      const { runId, events } = await streamOnThread('agent', {
        input: QUESTION,
        streamMode: modes,
      });
      expectMetadataFirst(events, runId);
      expect(new Set(distinctNames(events))).toEqual(
        new Set(['metadata', 'values', 'updates', 'messages', 'debug', 'events']),
      );
    });
  });

  it('numbers the records 0, 1, 2, ... on the raw wire, with the SSE framing and headers', async () => {
    const thread = await suite.client.threads.create();
    const response = await api(`/threads/${thread.thread_id}/runs/stream`, {
      body: {
        assistant_id: 'agent',
        input: QUESTION,
        stream_mode: ['values', 'updates', 'messages-tuple'],
      },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const contentLocation = response.headers.get('content-location') ?? '';
    expect(contentLocation).toMatch(
      new RegExp(`^/threads/${thread.thread_id}/runs/[0-9a-f-]{36}$`),
    );
    expect(response.headers.get('location')).toBe(`${contentLocation}/stream`);
    const events = await readSse(response);
    expect(events.length).toBeGreaterThan(10);
    expectConsecutiveIds(events);
    expectMetadataFirst(events, contentLocation.split('/').at(-1));
    expect(new Set(distinctNames(events))).toEqual(
      new Set(['metadata', 'values', 'updates', 'messages']),
    );
  });

  describe('stream_subgraphs on the subgraph graph', () => {
    const input = { topic: 'tides' };

    it('with it, the subgraph updates come as updates|research:<id>', async () => {
      const { runId, events } = await streamOnThread('subgraph', {
        input,
        streamMode: 'updates',
        streamSubgraphs: true,
      });
      expectMetadataFirst(events, runId);
      const namespaced = events.filter((event) => event.event.startsWith('updates|'));
      expect(namespaced.length).toBe(2);
      for (const event of namespaced) expect(event.event).toMatch(/^updates\|research:[0-9a-f-]+$/);
      expect(new Set(names(namespaced)).size).toBe(1);
      expect(namespaced.map((event) => Object.keys(event.data as object))).toEqual([
        ['search'],
        ['summarize'],
      ]);
      expect(ofEvent(events, 'updates').map((event) => Object.keys(event.data as object))).toEqual([
        ['plan'],
        ['research'],
        ['report'],
      ]);
    });

    it('without it, only the parent graph updates come, without namespaces', async () => {
      const { runId, events } = await streamOnThread('subgraph', { input, streamMode: 'updates' });
      expectMetadataFirst(events, runId);
      expect(distinctNames(events)).toEqual(['metadata', 'updates']);
      expect(ofEvent(events, 'updates').map((event) => Object.keys(event.data as object))).toEqual([
        ['plan'],
        ['research'],
        ['report'],
      ]);
    });
  });

  it('POST /runs/stream runs statelessly and leaves no thread behind', async () => {
    const threadsBefore = await suite.client.threads.search({ limit: 1000 });
    let created: { run_id: string; thread_id?: string } | undefined;
    const events = await collect(
      suite.client.runs.stream(null, 'agent', {
        input: QUESTION,
        streamMode: ['values', 'messages-tuple'],
        onRunCreated: (run) => {
          created = run;
        },
      }),
    );
    expect(created?.run_id).toMatch(/^[0-9a-f-]{36}$/);
    expectMetadataFirst(events, created?.run_id);
    const final = ofEvent(events, 'values').at(-1);
    expect(messagesOf(final?.data).map((m) => m.type)).toEqual(['human', 'ai', 'tool', 'ai']);

    // The temporary thread the run used is named in the messages' metadata.
    const [, metadata] = ofEvent(events, 'messages')[0]?.data as [WireMessage, MessageMetadata];
    const threadId = metadata.thread_id as string;
    expect(threadId).toMatch(/^[0-9a-f-]{36}$/);
    await expect(suite.client.threads.get(threadId)).rejects.toThrow(/404|not found/i);
    expect((await api(`/threads/${threadId}`)).status).toBe(404);
    expect((await api(`/threads/${threadId}/state`)).status).toBe(404);
    expect((await api(`/threads/${threadId}/runs`)).status).toBe(404);
    const threadsAfter = await suite.client.threads.search({ limit: 1000 });
    expect(threadsAfter.map((thread) => thread.thread_id)).not.toContain(threadId);
    expect(threadsAfter.map((thread) => thread.thread_id).sort()).toEqual(
      threadsBefore.map((thread) => thread.thread_id).sort(),
    );
    expect(await suite.client.threads.search({ ids: [threadId] })).toEqual([]);
  });

  describe('joining a background run', () => {
    const slow = { steps: 40, delay_ms: 20 };

    it('GET .../stream with Last-Event-ID: -1 gets the whole stream from metadata', async () => {
      const thread = await suite.client.threads.create();
      const run = await suite.client.runs.create(thread.thread_id, 'custom', {
        input: slow,
        streamMode: ['values', 'custom'],
      });
      const path = `/threads/${thread.thread_id}/runs/${run.run_id}/stream`;
      const response = await api(path, { headers: { 'last-event-id': '-1' } });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(response.headers.get('location')).toBe(path);
      const joined = await readSse(response);
      expectMetadataFirst(joined, run.run_id);
      expectConsecutiveIds(joined);
      expect(names(joined)).toEqual([
        'metadata',
        'values',
        ...Array<string>(40).fill('custom'),
        'values',
        'custom',
        'values',
      ]);
      expect(ofEvent(joined, 'values').at(-1)?.data).toEqual({
        ...slow,
        total: 820,
        result: 'The sum of 1..40 is 820.',
      });
      // The same again once the run is over.
      const replay = await readSse(await api(path, { headers: { 'last-event-id': '-1' } }));
      expect(replay).toEqual(joined);
    });

    it('client.runs.joinStream follows the run from where it is until it ends', async () => {
      const thread = await suite.client.threads.create();
      const run = await suite.client.runs.create(thread.thread_id, 'custom', {
        input: slow,
        streamMode: ['values', 'custom'],
      });
      const joined = await collect(suite.client.runs.joinStream(thread.thread_id, run.run_id));
      const path = `/threads/${thread.thread_id}/runs/${run.run_id}/stream`;
      const full = await readSse(await api(path, { headers: { 'last-event-id': '-1' } }));
      expect(full).toHaveLength(45);
      // Nothing from before joining is replayed: what came is the tail of the run, in order.
      expect(joined.length).toBeGreaterThan(0);
      expect(joined.length).toBeLessThanOrEqual(full.length);
      expect(joined).toEqual(full.slice(full.length - joined.length));
      expect(joined.at(-1)?.event).toBe('values');
      expect((await suite.client.runs.get(thread.thread_id, run.run_id)).status).toBe('success');
    });

    it('client.runs.joinStream with lastEventId "-1" replays the whole run', async () => {
      const thread = await suite.client.threads.create();
      const run = await suite.client.runs.create(thread.thread_id, 'custom', {
        input: { steps: 5 },
        streamMode: 'custom',
      });
      const joined = await collect(
        suite.client.runs.joinStream(thread.thread_id, run.run_id, { lastEventId: '-1' }),
      );
      expectMetadataFirst(joined, run.run_id);
      expectConsecutiveIds(joined);
      expect(names(joined)).toEqual(['metadata', ...Array<string>(6).fill('custom')]);
    });

    it('the streaming client and concurrent joiners with Last-Event-ID -1 all get the same records', async () => {
      const thread = await suite.client.threads.create();
      const streaming = suite.client.runs.stream(thread.thread_id, 'custom', {
        input: slow,
        streamMode: ['values', 'custom'],
      });
      const first = await streaming.next();
      expect(first.done).toBe(false);
      const { id, event, data } = first.value as WireEvent;
      const runId = (data as { run_id: string }).run_id;
      const path = `/threads/${thread.thread_id}/runs/${runId}/stream`;
      const joiners = [1, 2, 3].map(async () =>
        readSse(await api(path, { headers: { 'last-event-id': '-1' } })),
      );
      const streamed = [{ id, event, data }, ...(await collect(streaming))];
      const joined = await Promise.all(joiners);
      expect(streamed).toHaveLength(45);
      expectConsecutiveIds(streamed);
      for (const records of joined) expect(records).toEqual(streamed);
    });

    it('a join stream of a finished run without Last-Event-ID ends at once, empty', async () => {
      const thread = await suite.client.threads.create();
      const run = await suite.client.runs.create(thread.thread_id, 'custom', {
        input: { steps: 2 },
      });
      await suite.client.runs.join(thread.thread_id, run.run_id);
      const joined = await collect(suite.client.runs.joinStream(thread.thread_id, run.run_id));
      expect(joined).toEqual([]);
    });

    it('client.runs.joinStream with streamMode keeps those modes (and metadata) only', async () => {
      const thread = await suite.client.threads.create();
      const run = await suite.client.runs.create(thread.thread_id, 'custom', {
        input: { steps: 3 },
        streamMode: ['values', 'custom'],
      });
      await suite.client.runs.join(thread.thread_id, run.run_id);
      const joined = await collect(
        suite.client.runs.joinStream(thread.thread_id, run.run_id, {
          lastEventId: '-1',
          streamMode: ['custom'],
        }),
      );
      expect(names(joined)).toEqual(['metadata', ...Array<string>(4).fill('custom')]);
    });

    it('client.runs.joinStream joins a stateless run by its id alone (GET /runs/{id}/stream)', async () => {
      const run = await suite.client.runs.create(null, 'custom', {
        input: { steps: 3 },
        streamMode: 'custom',
      });
      const joined = await collect(
        suite.client.runs.joinStream(null, run.run_id, { lastEventId: '-1' }),
      );
      expectMetadataFirst(joined, run.run_id);
      expect(names(joined).slice(1)).toEqual(Array<string>(4).fill('custom'));
      const unknown = await api('/runs/01a20d69-0000-7000-8000-000000000000/stream');
      expect(unknown.status).toBe(404);
    });

    it('client.threads.joinStream follows every run of the thread, and resumes after an id it sent', async () => {
      const thread = await suite.client.threads.create();
      const first = await suite.client.runs.create(thread.thread_id, 'custom', {
        input: { steps: 30, delay_ms: 20 },
        streamMode: 'custom',
        multitaskStrategy: 'enqueue',
      });
      const seen: WireEvent[] = [];
      let second: { run_id: string } | undefined;
      for await (const part of suite.client.threads.joinStream(thread.thread_id)) {
        seen.push(part as WireEvent);
        // Joined: the next run on the thread is followed from its start.
        second ??= await suite.client.runs.create(thread.thread_id, 'custom', {
          input: { steps: 3 },
          streamMode: 'custom',
          multitaskStrategy: 'enqueue',
        });
        const last = part as WireEvent;
        if (
          last.event === 'run_done' &&
          (last.data as { run_id: string }).run_id === second.run_id
        ) {
          break;
        }
      }
      if (!second) throw new Error('the thread stream ended before it streamed anything');
      // The first run was followed from where it was; the second from its start.
      const metadataRuns = ofEvent(seen, 'metadata').map(
        (e) => (e.data as { run_id: string }).run_id,
      );
      expect(metadataRuns).toContain(second.run_id);
      expect(seen.filter((e) => e.event === 'custom').length).toBeGreaterThan(4);
      expect(new Set(seen.map((e) => e.id)).size).toBe(seen.length);
      expect((await suite.client.runs.get(thread.thread_id, first.run_id)).status).toBe('success');

      // Resuming after the second run's metadata replays what came after it, and only that.
      const index = seen.findIndex(
        (e) => e.event === 'metadata' && (e.data as { run_id: string }).run_id === second.run_id,
      );
      const resumed: WireEvent[] = [];
      for await (const part of suite.client.threads.joinStream(thread.thread_id, {
        lastEventId: seen[index]?.id,
      })) {
        resumed.push(part as WireEvent);
        if (resumed.length >= 4) break;
      }
      expect(resumed).toEqual(seen.slice(index + 1, index + 5));

      // lifecycle: each run's start and end only, from the thread's start with "-".
      const lifecycle: WireEvent[] = [];
      for await (const part of suite.client.threads.joinStream(thread.thread_id, {
        lastEventId: '-',
        streamMode: 'lifecycle',
      })) {
        lifecycle.push(part as WireEvent);
        if (lifecycle.length >= 4) break;
      }
      expect(lifecycle.map((e) => [e.event, (e.data as { run_id: string }).run_id])).toEqual([
        ['run_start', first.run_id],
        ['run_done', first.run_id],
        ['run_start', second.run_id],
        ['run_done', second.run_id],
      ]);
      expect((lifecycle[1]?.data as { status: string }).status).toBe('success');

      const bad = await api(`/threads/${thread.thread_id}/stream`, {
        headers: { 'last-event-id': 'not-an-id' },
      });
      expect(bad.status).toBe(400);
      const missing = await api('/threads/01a20d69-0000-7000-8000-000000000000/stream');
      expect(missing.status).toBe(404);
    });

    it('a joiner leaving with cancel_on_disconnect=1 cancels the run', async () => {
      const thread = await suite.client.threads.create();
      const run = await suite.client.runs.create(thread.thread_id, 'custom', {
        input: { steps: 400, delay_ms: 25 },
        streamMode: 'custom',
      });
      const leaving = new AbortController();
      const response = await api(
        `/threads/${thread.thread_id}/runs/${run.run_id}/stream?cancel_on_disconnect=1`,
        { signal: leaving.signal },
      );
      const reader = response.body?.getReader();
      await reader?.read();
      leaving.abort();
      await suite.client.runs.join(thread.thread_id, run.run_id);
      expect((await suite.client.runs.get(thread.thread_id, run.run_id)).status).toBe(
        'interrupted',
      );
    });
  });

  describe('waiting for the result', () => {
    it('POST /runs/wait answers with the final values of a stateless run', async () => {
      const result = await suite.client.runs.wait(null, 'agent', { input: QUESTION });
      const messages = messagesOf(result);
      expect(messages.map((m) => m.type)).toEqual(['human', 'ai', 'tool', 'ai']);
      expect(messages[3]?.content).toContain('Oslo');
    });

    it('POST /threads/{id}/runs/wait answers with the thread values after the run', async () => {
      const thread = await suite.client.threads.create();
      const result = await suite.client.runs.wait(thread.thread_id, 'custom', {
        input: { steps: 4 },
      });
      expect(result).toEqual({ steps: 4, total: 10, result: 'The sum of 1..4 is 10.' });
      expect((await suite.client.threads.getState(thread.thread_id)).values).toEqual(result);
    });

    it('GET .../join answers with the same values as wait, during and after the run', async () => {
      const thread = await suite.client.threads.create();
      const input = { steps: 20, delay_ms: 10 };
      const run = await suite.client.runs.create(thread.thread_id, 'custom', { input });
      const joined = await suite.client.runs.join(thread.thread_id, run.run_id);
      const expected = { ...input, total: 210, result: 'The sum of 1..20 is 210.' };
      expect(joined).toEqual(expected);
      expect(await suite.client.runs.join(thread.thread_id, run.run_id)).toEqual(expected);
      expect((await suite.client.threads.getState(thread.thread_id)).values).toEqual(expected);

      const waitedThread = await suite.client.threads.create();
      expect(await suite.client.runs.wait(waitedThread.thread_id, 'custom', { input })).toEqual(
        expected,
      );
    });
  });
});
