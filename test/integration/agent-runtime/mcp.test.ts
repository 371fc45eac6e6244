import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { resolve } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { connectMcp, type McpConnection } from '../../support/mcp-client.js';
import { startRuntime, type RuntimeProcess } from '../../support/runtime-process.js';
import { runtimeSuite } from '../../support/runtime-suite.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';

const NO_MCP_APP = resolve('test/fixtures/compat-app/no-mcp.json');
const SCHEMAS_APP = resolve('test/fixtures/schemas-app/langgraph.json');
/** How large a tool's input schema may be in a model's tool list. */
const SCHEMA_BUDGET_BYTES = 4096;

// The runtime without MCP starts meanwhile the other does (its test comes last).
let noMcp: Promise<{ database: TestDatabase; runtime: RuntimeProcess }> | undefined;
beforeAll(() => {
  noMcp = createTestDatabase('runtime_no_mcp').then(async (database) => ({
    database,
    runtime: await startRuntime({ databaseUrl: database.url, graphConfig: NO_MCP_APP }),
  }));
  noMcp.catch(() => undefined);
});
afterAll(async () => {
  const started = await noMcp;
  await started?.runtime.stop();
  await started?.database.drop();
});

type Message = { type: string; content: unknown };
type MessagesState = { messages: Message[] };
type Tool = Awaited<ReturnType<McpConnection['client']['listTools']>>['tools'][number];

const schemaBytes = (tool: Tool): number => Buffer.byteLength(JSON.stringify(tool.inputSchema));

/** What a tool's schema says a message in its `messages` argument is. */
const messageShapeOf = (tool: Tool | undefined): unknown =>
  (tool?.inputSchema.properties?.['messages'] as { items?: unknown } | undefined)?.items;

const ROLE_AND_CONTENT = expect.objectContaining({
  type: 'object',
  properties: expect.objectContaining({ role: expect.any(Object), content: expect.any(Object) }),
  required: ['content'],
});

describe('MCP at /mcp: each assistant a tool, through the official MCP SDK', () => {
  const suite = runtimeSuite('runtime_mcp');
  const open: McpConnection[] = [];
  const connect = async (): Promise<McpConnection['client']> => {
    const connection = await connectMcp(suite.runtime.url, { 'x-api-key': suite.runtime.apiKey });
    open.push(connection);
    return connection.client;
  };
  const ask = (text: string) => ({ messages: [{ role: 'user', content: text }] });
  afterAll(async () => {
    await Promise.all(open.map(({ client }) => client.close()));
  });

  it("lists every assistant as a tool, with its graph's input schema and thread_id", async () => {
    await suite.client.assistants.create({
      graphId: 'agent',
      name: 'Weather desk!',
      description: 'Answers about the weather.',
    });
    const { tools } = await (await connect()).listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect([...byName.keys()].sort()).toEqual(
      ['Weather_desk', 'agent', 'custom', 'interrupt', 'subgraph'].sort(),
    );
    expect(Object.keys(byName.get('agent')?.inputSchema.properties ?? {})).toEqual([
      'messages',
      'thread_id',
      'resume',
    ]);
    expect(Object.keys(byName.get('subgraph')?.inputSchema.properties ?? {})).toEqual([
      'topic',
      'notes',
      'answer',
      'thread_id',
      'resume',
    ]);
    // Compact enough for a model's tool list: a message is a role and content, not LangChain's classes.
    expect(tools.filter((tool) => schemaBytes(tool) >= SCHEMA_BUDGET_BYTES)).toEqual([]);
    expect(messageShapeOf(byName.get('agent'))).toEqual(ROLE_AND_CONTENT);
    expect(JSON.stringify(byName.get('agent')?.inputSchema)).not.toMatch(/BaseMessage/);
    expect(byName.get('Weather_desk')?.description).toBe('Answers about the weather.');
    expect(byName.get('agent')?.description).toMatch(/"agent"/);
  });

  it('runs the graph on a new thread and answers with its output, text and structured', async () => {
    const result = (await (
      await connect()
    ).callTool({
      name: 'agent',
      arguments: ask('weather in Tokyo'),
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const output = result.structuredContent as MessagesState;
    expect(output.messages.at(-1)?.content).toMatch(/24°C and sunny in Tokyo/);
    const [text] = result.content;
    expect(text?.type === 'text' && JSON.parse(text.text)).toEqual(output);
    // A run like any other: its thread holds what the tool answered.
    const threadId = String(result._meta?.['thread_id']);
    expect((await suite.client.threads.getState(threadId)).values).toEqual(output);
  });

  it('continues the thread it is given', async () => {
    const client = await connect();
    const thread = await suite.client.threads.create();
    const call = async (text: string): Promise<MessagesState> =>
      (
        (await client.callTool({
          name: 'Weather_desk',
          arguments: { ...ask(text), thread_id: thread.thread_id },
        })) as CallToolResult
      ).structuredContent as MessagesState;
    const first = await call('weather in Paris');
    const second = await call('and in London?');
    expect(second.messages.slice(0, first.messages.length)).toEqual(first.messages);
    expect(second.messages.at(-1)?.content).toMatch(/London/);
  });

  it('marks a run stopped at an interrupt as needing input, and resumes it when answered', async () => {
    const client = await connect();
    const asked = (await client.callTool({
      name: 'interrupt',
      arguments: { topic: 'otters' },
    })) as CallToolResult;
    expect(asked.isError).toBeFalsy();
    const threadId = String(asked._meta?.['thread_id']);
    expect(asked._meta).toMatchObject({
      status: 'input_required',
      resume: { tool: 'interrupt', arguments: { thread_id: threadId, resume: expect.any(String) } },
    });
    const question = {
      question: 'Do you approve this draft?',
      draft: expect.stringMatching(/otters/),
    };
    expect(asked.structuredContent).toMatchObject({
      topic: 'otters',
      __interrupt__: [{ id: expect.any(String), value: question }],
    });
    const [text] = asked.content;
    expect(text?.type === 'text' && text.text).toMatch(
      /waits for input.*Do you approve this draft/,
    );
    expect(text?.type === 'text' && text.text).toContain(`"thread_id":"${threadId}"`);

    const answered = (await client.callTool({
      name: 'interrupt',
      arguments: { thread_id: threadId, resume: true },
    })) as CallToolResult;
    expect(answered.isError).toBeFalsy();
    expect(answered._meta).toMatchObject({ thread_id: threadId, status: 'completed' });
    expect(answered.structuredContent).toMatchObject({
      approved: true,
      published: expect.stringMatching(/^Published: .*otters/),
    });
    expect(answered.structuredContent).not.toHaveProperty('__interrupt__');
    await expect(
      client.callTool({ name: 'interrupt', arguments: { resume: true } }),
    ).rejects.toMatchObject({ code: -32602, message: expect.stringMatching(/thread_id/) });
  });

  it('answers an unknown tool and bad arguments with MCP errors, a failed run with an error result', async () => {
    const client = await connect();
    await expect(client.callTool({ name: 'nope', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(/Unknown tool: nope/),
    });
    await expect(
      client.callTool({ name: 'agent', arguments: { thread_id: 'not-a-thread' } }),
    ).rejects.toMatchObject({ code: -32602, message: expect.stringMatching(/thread_id/) });
    const unknownThread = (await client.callTool({
      name: 'agent',
      arguments: { ...ask('hi'), thread_id: '01900000-0000-7000-8000-000000000000' },
    })) as CallToolResult;
    expect(unknownThread).toMatchObject({ isError: true });
    expect(JSON.stringify(unknownThread.content)).toMatch(/not found/);
    await expect(
      client.callTool({ name: 'agent', arguments: { messages: 42 } }),
    ).rejects.toMatchObject({ code: -32602, message: expect.stringMatching(/messages/) });
    // Arguments the graph's input schema takes (a role is any string) that the graph then refuses.
    const failed = (await client.callTool({
      name: 'agent',
      arguments: { messages: [{ role: 'wizard', content: 'hi' }] },
    })) as CallToolResult;
    expect(failed).toMatchObject({ isError: true });
    expect(JSON.stringify(failed.content)).toMatch(/coerce/);
  });

  it('refuses a request without the key, and forgets a session once ended', async () => {
    const anonymous = await fetch(`${suite.runtime.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({ detail: expect.any(String) });

    const { client, transport } = await connectMcp(suite.runtime.url, {
      'x-api-key': suite.runtime.apiKey,
    });
    const sessionId = transport.sessionId ?? '';
    expect(sessionId).not.toBe('');
    await transport.terminateSession();
    await client.close();
    const ended = await fetch(`${suite.runtime.url}/mcp`, {
      headers: {
        'x-api-key': suite.runtime.apiKey,
        'mcp-session-id': sessionId,
        accept: 'text/event-stream',
      },
    });
    expect(ended.status).toBe(404);
  });
});

describe("MCP tools of an app's other kinds of state", () => {
  const suite = runtimeSuite('runtime_mcp_schemas', undefined, { graphConfig: SCHEMAS_APP });

  it('keeps every input schema compact, its messages a role and content', async () => {
    const connection = await connectMcp(suite.runtime.url, { 'x-api-key': suite.runtime.apiKey });
    try {
      const { tools } = await connection.client.listTools();
      const byName = new Map(tools.map((tool) => [tool.name, tool]));
      expect(tools.length).toBeGreaterThan(5);
      expect(tools.filter((tool) => schemaBytes(tool) >= SCHEMA_BUDGET_BYTES)).toEqual([]);
      // An Annotation state with messages, and a zod state whose messages are marked as such.
      expect(messageShapeOf(byName.get('annotated'))).toEqual(ROLE_AND_CONTENT);
      expect(messageShapeOf(byName.get('state_schema'))).toEqual(ROLE_AND_CONTENT);
      expect(Object.keys(byName.get('annotated')?.inputSchema.properties ?? {})).toEqual([
        'messages',
        'ticket',
        'stage',
        'attempts',
        'thread_id',
        'resume',
      ]);
    } finally {
      await connection.client.close();
    }
  });
});

describe('MCP turned off by http.disable_mcp', () => {
  it('answers 404 with a detail at /mcp, and serves the rest', async () => {
    const { runtime } = (await noMcp) ?? {};
    if (!runtime) throw new Error('the runtime without MCP did not start');
    const response = await fetch(`${runtime.url}/mcp`, {
      method: 'POST',
      headers: { 'x-api-key': runtime.apiKey, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ detail: expect.stringMatching(/disable_mcp/) });
    const ok = await fetch(`${runtime.url}/info`, { headers: { 'x-api-key': runtime.apiKey } });
    expect(ok.status).toBe(200);
  });
});
