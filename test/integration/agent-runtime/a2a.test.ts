import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { A2AClient, TaskNotCancelableError, TaskNotFoundError } from 'a2a-sdk-03/client';
import type { Message, MessageSendParams, Task } from 'a2a-sdk-03';
import { Role, TaskState } from '@a2a-js/sdk';
import {
  type Client as A2aClient,
  ClientFactory,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';
import { runtimeSuite, type RuntimeSuite } from '../../support/runtime-suite.js';

const A2A_APP = resolve('test/fixtures/a2a-app/langgraph.json');
const A2A_DISABLED = resolve('test/fixtures/a2a-app/a2a-disabled.json');

function keyedFetch(suite: RuntimeSuite): typeof fetch {
  return (input, init = {}) => {
    const headers = new Headers(init.headers);
    headers.set('x-api-key', suite.runtime.apiKey);
    return fetch(input, { ...init, headers });
  };
}

const cardUrl = (suite: RuntimeSuite, assistant: string): string =>
  `${suite.runtime.url}/.well-known/agent-card.json?assistant_id=${assistant}`;

function userMessage(text: string, ids: { taskId?: string; contextId?: string } = {}): Message {
  return {
    kind: 'message',
    messageId: randomUUID(),
    role: 'user',
    parts: [{ kind: 'text', text }],
    ...ids,
  };
}

function taskOf(response: unknown): Task {
  const answer = response as { result?: Task; error?: unknown };
  if (!answer.result) throw new Error(`not a task: ${JSON.stringify(response)}`);
  return answer.result;
}

const textOf = (message: Message | undefined): string | undefined =>
  message?.parts.map((part) => (part.kind === 'text' ? part.text : '')).join('');

/** A task's history as (role, text) pairs. */
const turnsOf = (task: Task): [string, string | undefined][] =>
  (task.history ?? []).map((message) => [message.role, textOf(message)]);

/** A 1.x client's message/send of one text part, on a new context. */
function sendV1Text(agent: A2aClient, text: string): ReturnType<A2aClient['sendMessage']> {
  return agent.sendMessage({
    tenant: '',
    message: {
      messageId: randomUUID(),
      contextId: '',
      taskId: '',
      role: Role.ROLE_USER,
      parts: [
        {
          content: { $case: 'text', value: text },
          mediaType: 'text/plain',
          filename: '',
          metadata: {},
        },
      ],
      metadata: {},
      extensions: [],
      referenceTaskIds: [],
    },
    configuration: undefined,
    metadata: {},
  });
}

/** The headers of a user of the fixture's own auth. */
const asUser = (name: string): Record<string, string> => ({ authorization: `Bearer user-${name}` });

describe('A2A: each assistant an agent, a task a run, its context a thread', () => {
  const suite = runtimeSuite('runtime_a2a', undefined, { graphConfig: A2A_APP });
  /* eslint-disable @typescript-eslint/no-deprecated -- the 0.3 client, as A2A callers use it */
  const client = (assistant: string): Promise<A2AClient> =>
    A2AClient.fromCardUrl(cardUrl(suite, assistant), { fetchImpl: keyedFetch(suite) });
  /* eslint-enable @typescript-eslint/no-deprecated */
  const send = async (assistant: string, params: MessageSendParams): Promise<Task> =>
    taskOf(await (await client(assistant)).sendMessage(params));
  /** A raw A2A 0.3 JSON-RPC call, with the API key unless other headers are given. */
  const rpc = async (
    assistant: string,
    method: string,
    params: unknown,
    headers: Record<string, string> = { 'x-api-key': suite.runtime.apiKey },
  ): Promise<{ result?: Task; error?: { code: number; message: string } }> => {
    const response = await fetch(`${suite.runtime.url}/a2a/${assistant}`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    return (await response.json()) as { result?: Task; error?: { code: number; message: string } };
  };

  it('serves the card of an assistant, 0.3 by default and 1.0 when asked', async () => {
    const fetchKeyed = keyedFetch(suite);
    const card = (await (await fetchKeyed(cardUrl(suite, 'echo'))).json()) as Record<
      string,
      unknown
    >;
    expect(card).toMatchObject({
      name: 'echo',
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/a2a\/[0-9a-f-]{36}$/),
      protocolVersion: '0.3.0',
      capabilities: { streaming: true },
      skills: [
        expect.objectContaining({ id: 'echo', description: expect.stringContaining('messages') }),
      ],
    });
    const under = await fetchKeyed(`${String(card.url)}/.well-known/agent-card.json`, {
      headers: { 'A2A-Version': '1.0' },
    });
    expect(await under.json()).toMatchObject({
      name: 'echo',
      supportedInterfaces: [
        { url: card.url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: card.url, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      ],
    });
  });

  it('answers message/send with the completed task, and tasks/get reads it back', async () => {
    const task = await send('echo', { message: userMessage('hi there') });
    expect(task.status.state).toBe('completed');
    expect(task.artifacts?.[0]?.parts).toMatchObject([{ kind: 'text', text: 'echo: hi there' }]);
    const run = await suite.client.runs.get(task.contextId, task.id);
    expect(run.status).toBe('success');
    const read = taskOf(await (await client('echo')).getTask({ id: task.id }));
    expect(read).toMatchObject({
      id: task.id,
      contextId: task.contextId,
      status: { state: 'completed' },
    });
    expect(read.artifacts?.[0]?.parts).toMatchObject([{ kind: 'text', text: 'echo: hi there' }]);
    // The same context is the same thread: a second task runs on it.
    const next = await send('echo', {
      message: userMessage('again', { contextId: task.contextId }),
    });
    expect(next.contextId).toBe(task.contextId);
    const state = await suite.client.threads.getState<{ messages: unknown[] }>(task.contextId);
    expect(state.values.messages).toHaveLength(4);
  });

  it('streams message/stream as status updates ending in completed', async () => {
    const events = [];
    for await (const event of (await client('echo')).sendMessageStream({
      message: userMessage('streamed'),
    })) {
      events.push(event);
    }
    expect(events[0]).toMatchObject({ kind: 'task' });
    const statuses = events.filter((event) => event.kind === 'status-update');
    expect(statuses[0]).toMatchObject({ status: { state: 'working' } });
    expect(statuses.at(-1)).toMatchObject({ status: { state: 'completed' }, final: true });
    const artifact = events.find((event) => event.kind === 'artifact-update');
    expect(artifact).toMatchObject({
      artifact: { parts: [{ kind: 'text', text: 'echo: streamed' }] },
    });
  });

  it('asks for input on an interrupt, and a follow-up message resumes the task', async () => {
    const asked = await send('ask', { message: userMessage('hello') });
    expect(asked.status.state).toBe('input-required');
    expect(textOf(asked.status.message)).toBe('What is your name?');
    const answered = await send('ask', {
      message: userMessage('Ada', { taskId: asked.id, contextId: asked.contextId }),
    });
    expect(answered).toMatchObject({
      id: asked.id,
      contextId: asked.contextId,
      status: { state: 'completed' },
    });
    expect(answered.artifacts?.[0]?.parts).toMatchObject([{ kind: 'text', text: 'hello, Ada' }]);
    const runs = await suite.client.runs.list(asked.contextId);
    expect(runs.map((run) => run.status)).toEqual(['success', 'success']);
    // Its history, rebuilt from its runs: each one's input or resume value, then the reply.
    const agent = await client('ask');
    const read = taskOf(await agent.getTask({ id: asked.id }));
    expect(turnsOf(read)).toEqual([
      ['user', 'hello'],
      ['agent', 'What is your name?'],
      ['user', 'Ada'],
      ['agent', 'hello, Ada'],
    ]);
    expect(read.history?.[0]?.messageId).toBe(asked.history?.[0]?.messageId);
    const last = taskOf(await agent.getTask({ id: asked.id, historyLength: 2 }));
    expect(turnsOf(last)).toEqual([
      ['user', 'Ada'],
      ['agent', 'hello, Ada'],
    ]);
  });

  it('cancels a running task: its run is interrupted, the task reads back canceled', async () => {
    const agent = await client('slow');
    const started = taskOf(
      await agent.sendMessage({
        message: userMessage('take your time'),
        configuration: { blocking: false },
      }),
    );
    const ids = { taskId: started.id, contextId: started.contextId };
    while ((await suite.client.runs.get(ids.contextId, ids.taskId)).status !== 'running') {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // A message to a task still working is refused, and makes no run.
    expect(
      await rpc('slow', 'message/send', { message: userMessage('faster', ids) }),
    ).toMatchObject({ error: { code: -32004, message: expect.stringContaining('still working') } });
    const cancelled = taskOf(await agent.cancelTask({ id: started.id }));
    expect(cancelled).toMatchObject({ id: started.id, status: { state: 'canceled' } });
    const run = await suite.client.runs.get(ids.contextId, ids.taskId);
    expect(run.status).toBe('interrupted');
    expect(taskOf(await agent.getTask({ id: started.id })).status.state).toBe('canceled');
    expect(await suite.client.runs.list(ids.contextId)).toHaveLength(1);
  });

  it('answers a JSON-RPC error, not a failed task, for a contextId that names no thread', async () => {
    for (const method of ['message/send', 'message/stream']) {
      const message = userMessage('lost', { contextId: 'not-a-thread' });
      const response = await fetch(`${suite.runtime.url}/a2a/echo`, {
        method: 'POST',
        headers: { 'x-api-key': suite.runtime.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { message } }),
      });
      expect(await response.text()).toContain('"code":-32602');
    }
  });

  it('refuses tasks/cancel of a finished or unknown task, and tasks/get of an unknown one', async () => {
    const agent = await client('echo');
    const done = await send('echo', { message: userMessage('done') });
    await expect(agent.cancelTask({ id: done.id })).rejects.toThrow(TaskNotCancelableError);
    await expect(agent.cancelTask({ id: randomUUID() })).rejects.toThrow(TaskNotFoundError);
    await expect(agent.getTask({ id: 'not-a-task' })).rejects.toThrow(TaskNotFoundError);
  });

  it('speaks A2A 1.0 to the 1.x client', async () => {
    const factory = new ClientFactory({
      transports: [new JsonRpcTransportFactory({ fetchImpl: keyedFetch(suite) })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl: keyedFetch(suite) }),
    });
    const agent = await factory.createFromUrl(
      suite.runtime.url,
      '/.well-known/agent-card.json?assistant_id=echo',
    );
    const result = await sendV1Text(agent, 'v1');
    expect(result).toMatchObject({ status: { state: TaskState.TASK_STATE_COMPLETED } });
    const task = result as { id: string };
    const read = await agent.getTask({ tenant: '', id: task.id, historyLength: undefined });
    expect(read.artifacts[0]?.parts[0]?.content).toEqual({ $case: 'text', value: 'echo: v1' });
  });

  it('finds an agent named by a trailing slash or ?assistant_id=, and tells a URL naming none how to', async () => {
    const factory = new ClientFactory({
      transports: [new JsonRpcTransportFactory({ fetchImpl: keyedFetch(suite) })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl: keyedFetch(suite) }),
    });
    const completed = { status: { state: TaskState.TASK_STATE_COMPLETED } };
    const slashed = await factory.createFromUrl(`${suite.runtime.url}/a2a/echo/`);
    expect(await sendV1Text(slashed, 'slash')).toMatchObject(completed);
    const queried = await factory.createFromUrl(
      `${suite.runtime.url}/a2a/`,
      '.well-known/agent-card.json?assistant_id=echo',
    );
    expect(await sendV1Text(queried, 'query')).toMatchObject(completed);
    // Without the slash the SDK asks one level up, for /a2a/.well-known/agent-card.json.
    await expect(factory.createFromUrl(`${suite.runtime.url}/a2a/echo`)).rejects.toThrow(
      `${suite.runtime.url}/a2a/.well-known/agent-card.json: 404`,
    );
    // A client that posts to the URL it was given, slash and all, reaches the agent too.
    expect(
      await rpc('echo/', 'message/send', { message: userMessage('posted to the slash') }),
    ).toMatchObject({ result: { status: { state: 'completed' } } });
    const unnamed = await keyedFetch(suite)(`${suite.runtime.url}/a2a/.well-known/agent-card.json`);
    expect(unnamed.status).toBe(404);
    const { detail } = (await unnamed.json()) as { detail: string };
    expect(detail).toContain('/a2a/{assistant_id}/');
    expect(detail).toContain('?assistant_id={assistant_id}');
  });

  it('asks for credentials (the API key, or a user of the app auth), answers an unknown assistant 404', async () => {
    const anonymous = await fetch(cardUrl(suite, 'echo'));
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({ detail: expect.any(String) });
    const rpc = await fetch(`${suite.runtime.url}/a2a/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: 'x' } }),
    });
    expect(rpc.status).toBe(401);
    const unknown = await keyedFetch(suite)(cardUrl(suite, 'nobody'));
    expect(unknown.status).toBe(404);
  });

  it("under the application's auth, keeps a user's tasks from another and refuses what it refuses", async () => {
    expect((await fetch(cardUrl(suite, 'echo'), { headers: asUser('bob') })).status).toBe(200);
    const task = taskOf(
      await rpc('echo', 'message/send', { message: userMessage('mine') }, asUser('alice')),
    );
    expect(task.status.state).toBe('completed');
    expect((await suite.client.threads.get(task.contextId)).metadata).toMatchObject({
      owner: 'alice',
    });
    expect(await rpc('echo', 'tasks/get', { id: task.id }, asUser('alice'))).toMatchObject({
      result: { id: task.id, status: { state: 'completed' } },
    });
    const notFound = { error: { code: -32001 } };
    expect(await rpc('echo', 'tasks/get', { id: task.id }, asUser('bob'))).toMatchObject(notFound);
    expect(await rpc('echo', 'tasks/cancel', { id: task.id }, asUser('bob'))).toMatchObject(
      notFound,
    );
    // Bob may not write to Alice's context, Mallory may make no thread: errors, no failed task.
    const theirs = userMessage('theirs', { contextId: task.contextId });
    expect(await rpc('echo', 'message/send', { message: theirs }, asUser('bob'))).toMatchObject({
      error: { code: -32602, message: expect.stringContaining('not found') },
    });
    expect(
      await rpc('echo', 'message/send', { message: userMessage('mine too') }, asUser('mallory')),
    ).toMatchObject({ error: { code: -32602 } });
    expect(await suite.client.runs.list(task.contextId)).toHaveLength(1);
  });

  it('reads a task back after a restart: its status, artifacts and history from the log', async () => {
    const task = await send('echo', { message: userMessage('before the restart') });
    await suite.restart();
    const read = taskOf(await (await client('echo')).getTask({ id: task.id }));
    expect(read).toEqual(task);
    expect(turnsOf(read)).toEqual([
      ['user', 'before the restart'],
      ['agent', 'echo: before the restart'],
    ]);
    // A restart stops a process and starts another: more than Jest's 30 s on a loaded machine.
  }, 90_000);
});

describe('A2A turned off by http.disable_a2a', () => {
  const suite = runtimeSuite('runtime_a2a_disabled', undefined, { graphConfig: A2A_DISABLED });

  it('answers its routes 404 with a detail', async () => {
    const card = await keyedFetch(suite)(cardUrl(suite, 'echo'));
    expect(card.status).toBe(404);
    expect(await card.json()).toEqual({ detail: expect.stringContaining('disable_a2a') });
    const rpc = await keyedFetch(suite)(`${suite.runtime.url}/a2a/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(rpc.status).toBe(404);
  });
});
