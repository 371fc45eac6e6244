import { describe, expect, it, jest } from '@jest/globals';
import { START, StateGraph } from '@langchain/langgraph';
import {
  needsCallbackEvents,
  streamGraphRun,
  toLibraryStreamModes,
  type GraphRunRequest,
  type StreamMode,
  type StreamedEvent,
} from './graph-stream.js';
import {
  ItemsState,
  NODE_METADATA,
  RUN_ID,
  SERVER_METADATA,
  THREAD_ID,
  buildCommand,
  collect,
  dataOf,
  deepGraph,
  echoGraph,
  fanOutGraph,
  interruptGraph,
  namesOf,
  nestedGraph,
  runRequest as baseRunRequest,
  serverConfig,
  toWireLines,
} from './testing/graph-stream-fixtures.js';

const createCommand = jest.fn(buildCommand);
const runRequest = (
  graph: unknown,
  streamModes: readonly StreamMode[],
  overrides: Partial<GraphRunRequest> = {},
): GraphRunRequest => baseRunRequest(graph, streamModes, { createCommand, ...overrides });

describe('streamGraphRun', () => {
  describe('matches the reference captures', () => {
    it('streams values, messages tuples and updates (stream-values-updates-messages.txt)', async () => {
      const events = await collect(
        runRequest(echoGraph(), ['values', 'messages-tuple', 'updates'], {
          config: serverConfig('echo'),
        }),
      );

      const token = (text: string) =>
        `messages [{"content":"${text}","tool_calls":[],"invalid_tool_calls":[],"tool_call_chunks":[],` +
        `"additional_kwargs":{},"response_metadata":{},"id":"run-<uuid>","type":"ai"},` +
        `{"tags":[],"ls_integration":"langchain_chat_model",${SERVER_METADATA('echo')},` +
        `${NODE_METADATA('echo')},"ls_model_type":"chat","ls_provider":"FakeListChatModel",` +
        `"versions":{"@langchain/core":"1.4.0"},"graph_node":"echo"}]`;
      expect(toWireLines(events)).toEqual([
        'values {"messages":[{"content":"hi","additional_kwargs":{},"response_metadata":{},"id":"<uuid>","type":"human"}]}',
        ...['e', 'c', 'h', 'o', ':', ' ', 'h', 'i'].map(token),
        'updates {"echo":{"messages":[{"content":"echo: hi","additional_kwargs":{},"response_metadata":{},"tool_call_chunks":[],"tool_calls":[],"id":"run-<uuid>","invalid_tool_calls":[],"type":"ai"}]}}',
        'values {"messages":[{"content":"hi","additional_kwargs":{},"response_metadata":{},"id":"<uuid>","type":"human"},{"id":"run-<uuid>","content":"echo: hi","additional_kwargs":{},"response_metadata":{},"tool_calls":[],"invalid_tool_calls":[],"type":"ai"}]}',
      ]);
    });

    it('namespaces subgraph output as <event>|<ns> (stream-nested-subgraphs.txt)', async () => {
      const events = await collect(
        runRequest(nestedGraph(), ['messages-tuple', 'updates'], {
          config: serverConfig('nested'),
          subgraphs: true,
        }),
      );

      const ai = (text: string) =>
        `{"content":"${text}","tool_calls":[],"invalid_tool_calls":[],"additional_kwargs":{},` +
        `"response_metadata":{},"id":"run-<uuid>-out-0","type":"ai"}`;
      const human =
        '{"content":"hi","additional_kwargs":{},"response_metadata":{},"id":"<uuid>","type":"human"}';
      const tuple = (text: string, node: string, ns = '') =>
        `[${ai(text)},{"tags":["graph:step:1"],"name":"${node}","ls_integration":"langgraph",` +
        `${SERVER_METADATA('nested')},${NODE_METADATA(node, ns)},"graph_node":"${node}"}]`;
      expect(toWireLines(events)).toEqual([
        `messages ${tuple('from parent', 'parent_node')}`,
        `updates {"parent_node":{"messages":[${ai('from parent')}]}}`,
        `messages|sub:<uuid> ${tuple('from child', 'child_node', 'sub:<uuid>|')}`,
        `updates|sub:<uuid> {"child_node":{"messages":[${ai('from child')}]}}`,
        `updates {"sub":{"messages":[${human},${ai('from parent')},${ai('from child')}]}}`,
      ]);
    });

    it('reports an interrupt in updates and values (interrupt-stream.txt)', async () => {
      const events = await collect(runRequest(interruptGraph(), ['values', 'updates']));

      expect(toWireLines(events)).toEqual([
        'values {"messages":[{"content":"hi","additional_kwargs":{},"response_metadata":{},"id":"<uuid>","type":"human"}]}',
        'updates {"__interrupt__":[{"id":"<hex>","value":{"question":"what is your name?"}}]}',
        'values {"__interrupt__":[{"id":"<hex>","value":{"question":"what is your name?"}}]}',
      ]);
    });
  });

  it('derives the library stream modes like the reference', () => {
    expect(toLibraryStreamModes(['messages-tuple', 'events', 'updates'])).toEqual([
      'updates',
      'messages',
    ]);
    expect(toLibraryStreamModes(['messages'])).toEqual(['messages', 'values']);
    expect(toLibraryStreamModes(['events'])).toEqual([]);
  });

  it('sends the updates of nodes that ran in the same step separately', async () => {
    const events = await collect(runRequest(fanOutGraph(), ['updates'], { input: { items: [] } }));

    expect(events).toEqual([
      { event: 'updates', data: { a: { items: ['a'] } } },
      { event: 'updates', data: { b: { items: ['b'] } } },
      { event: 'updates', data: { join: { items: ['join'] } } },
    ]);
  });

  it('streams custom data written with config.writer and with getWriter()', async () => {
    const fanOut = await collect(runRequest(fanOutGraph(), ['custom'], { input: { items: [] } }));
    const deep = await collect(runRequest(deepGraph(), ['custom'], { subgraphs: true }));

    expect(fanOut).toEqual([{ event: 'custom', data: { progress: 'joining' } }]);
    expect(deep).toEqual([
      {
        event: expect.stringMatching(/^custom\|outer:[0-9a-f-]{36}\|inner:[0-9a-f-]{36}$/),
        data: { depth: 2 },
      },
    ]);
  });

  it('only streams the root graph when subgraphs are not requested', async () => {
    const events = await collect(
      runRequest(deepGraph(), ['values', 'updates', 'messages-tuple', 'custom']),
    );

    // Custom data always reaches the root stream; only its namespace is dropped.
    expect(namesOf(events)).toEqual(['values', 'custom', 'messages', 'updates', 'values']);
  });

  it('adds graph_node to the metadata of every messages tuple', async () => {
    const events = await collect(runRequest(deepGraph(), ['messages-tuple'], { subgraphs: true }));

    const echoed = await collect(runRequest(echoGraph(), ['messages-tuple']));

    // The leaf's message is reported once, by the subgraph that produced it.
    expect(namesOf(events)).toEqual([
      expect.stringMatching(/^messages\|outer:[^|]+\|inner:[^|]+$/),
    ]);
    for (const { data } of [...events, ...echoed]) {
      const [, metadata] = data as [unknown, Record<string, unknown>];
      expect(metadata['graph_node']).toBe(metadata['langgraph_node']);
    }
    expect(echoed).toHaveLength(8);
  });

  it('resumes an interrupted run with a command built by createCommand', async () => {
    const graph = interruptGraph();
    await collect(runRequest(graph, ['updates']));
    createCommand.mockClear();

    const resumed = await collect(
      runRequest(graph, ['updates'], { input: null, command: { resume: 'Ada' } }),
    );

    expect(createCommand).toHaveBeenCalledWith({ resume: 'Ada' });
    expect(resumed).toEqual([
      { event: 'updates', data: { ask: { name: 'Ada' } } },
      {
        event: 'updates',
        data: {
          greet: {
            messages: [
              expect.objectContaining({ content: 'hello Ada', type: 'ai', tool_calls: [] }),
            ],
          },
        },
      },
    ]);
  });

  it('stops at interruptBefore', async () => {
    const events = await collect(
      runRequest(interruptGraph(), ['updates'], { interruptBefore: ['ask'] }),
    );

    expect(events).toEqual([{ event: 'updates', data: { __interrupt__: [] } }]);
  });

  it('emits debug events with the reference checkpoint references', async () => {
    const events = await collect(runRequest(echoGraph(), ['debug']));

    expect(new Set(namesOf(events))).toEqual(new Set(['debug']));
    const types = events.map(({ data }) => (data as { type: string }).type);
    expect(types).toEqual(['checkpoint', 'checkpoint', 'task', 'task_result', 'checkpoint']);
    const checkpoint = (events[4]?.data as { payload: Record<string, unknown> }).payload;
    expect(Object.keys(checkpoint)).toEqual([
      'config',
      'values',
      'metadata',
      'next',
      'tasks',
      'checkpoint',
      'parent_checkpoint',
      'parent_config',
    ]);
    expect(checkpoint['checkpoint']).toEqual({
      thread_id: THREAD_ID,
      checkpoint_id: expect.any(String),
      checkpoint_ns: '',
      checkpoint_map: null,
    });
    expect(checkpoint['parent_checkpoint']).toEqual(
      expect.objectContaining({ thread_id: THREAD_ID, checkpoint_ns: '' }),
    );
    const configurable = (checkpoint['config'] as { configurable: Record<string, unknown> })
      .configurable;
    expect(Object.keys(configurable).filter((key) => key.startsWith('__'))).toEqual([]);
  });

  it('emits tasks and checkpoints events', async () => {
    const events = await collect(runRequest(echoGraph(), ['tasks', 'checkpoints']));

    expect(namesOf(events)).toEqual([
      'checkpoints',
      'checkpoints',
      'tasks',
      'tasks',
      'checkpoints',
    ]);
    expect(Object.keys(events[0]?.data as object)).toEqual(['values', 'metadata', 'next']);
    expect(events[3]?.data).toEqual(
      expect.objectContaining({ name: 'echo', result: expect.any(Object), error: null }),
    );
  });

  it('forwards checkpoint envelopes before values when streaming subgraphs', async () => {
    const events = await collect(runRequest(nestedGraph(), ['values'], { subgraphs: true }));

    expect(namesOf(events).map((name) => name.replace(/\|sub:.*/, '|sub'))).toEqual([
      'checkpoints',
      'values',
      'checkpoints',
      'values',
      'checkpoints|sub',
      'values|sub',
      'checkpoints|sub',
      'values|sub',
      'checkpoints',
      'values',
    ]);
    expect(events[0]?.data).toEqual({
      id: expect.any(String),
      parent_id: expect.any(String),
      step: 0,
      source: 'loop',
    });
  });

  it('emits every callback event but the root stream chunks in events mode', async () => {
    const events = await collect(runRequest(echoGraph(), ['events']));

    expect(new Set(namesOf(events))).toEqual(new Set(['events']));
    const kinds = events.map(({ data }) => (data as { event: string }).event);
    expect(kinds[0]).toBe('on_chain_start');
    expect(kinds).toContain('on_chat_model_start');
    expect(kinds.filter((kind) => kind === 'on_chat_model_stream')).toHaveLength(8);
    expect(kinds).toContain('on_chat_model_end');
    expect(kinds).not.toContain('on_chain_stream');
    expect(kinds.at(-1)).toBe('on_chain_end');
    const root = events[0]?.data as { run_id: string; name: string };
    expect(root).toEqual(expect.objectContaining({ run_id: RUN_ID, name: 'LangGraph' }));
  });

  it('emits the legacy messages/metadata, messages/partial and messages/complete events', async () => {
    const events = await collect(runRequest(echoGraph(), ['messages']));

    expect(namesOf(events)).toEqual([
      'messages/complete',
      'messages/metadata',
      ...Array<string>(8).fill('messages/partial'),
      'messages/complete',
    ]);
    const partials = dataOf(events, 'messages/partial') as [{ content: string }][];
    expect(partials.map(([message]) => message.content)).toEqual([
      'e',
      'ec',
      'ech',
      'echo',
      'echo:',
      'echo: ',
      'echo: h',
      'echo: hi',
    ]);
    const [metadataEvent] = dataOf(events, 'messages/metadata') as Record<
      string,
      { metadata: Record<string, unknown> }
    >[];
    const [messageId] = Object.keys(metadataEvent ?? {});
    expect(messageId).toMatch(/^run-/);
    expect(metadataEvent?.[messageId ?? '']?.metadata).toEqual(
      expect.objectContaining({ langgraph_node: 'echo', graph_node: 'echo' }),
    );
    const [first, last] = dataOf(events, 'messages/complete') as [{ type: string }][];
    expect(first?.map(({ type }) => type)).toEqual(['human']);
    expect(last).toEqual([expect.objectContaining({ id: messageId, content: 'echo: hi' })]);
  });

  it('lets graph errors propagate', async () => {
    const graph = new StateGraph(ItemsState)
      .addNode('boom', () => {
        throw new Error('kaboom');
      })
      .addEdge(START, 'boom')
      .compile();

    await expect(collect(runRequest(graph, ['values'], { input: { items: [] } }))).rejects.toThrow(
      'kaboom',
    );
  });

  it('forwards recursion_limit', async () => {
    const graph = new StateGraph(ItemsState)
      .addNode('again', () => ({ items: ['x'] }))
      .addEdge(START, 'again')
      .addConditionalEdges('again', () => 'again')
      .compile();
    const config = { ...serverConfig('g'), recursion_limit: 3 };

    await expect(
      collect(runRequest(graph, ['values'], { input: { items: [] }, config })),
    ).rejects.toThrow(/Recursion limit of 3/);
  });

  it('stops the graph when the signal aborts', async () => {
    let steps = 0;
    const graph = new StateGraph(ItemsState)
      .addNode('tick', async () => {
        steps += 1;
        await new Promise((done) => setTimeout(done, 5));
        return { items: ['tick'] };
      })
      .addEdge(START, 'tick')
      .addConditionalEdges('tick', () => 'tick')
      .compile();
    const controller = new AbortController();
    const reason = new Error('cancelled');
    const received: StreamedEvent[] = [];
    const request = runRequest(graph, ['updates'], {
      input: { items: [] },
      config: { recursion_limit: 1000 },
      signal: controller.signal,
    });

    const run = (async () => {
      for await (const event of streamGraphRun(request)) {
        received.push(event);
        if (received.length === 2) controller.abort(reason);
      }
    })();

    await expect(run).rejects.toBe(reason);
    const stepsAtAbort = steps;
    await new Promise((done) => setTimeout(done, 50));
    expect(steps).toBe(stepsAtAbort);
    expect(steps).toBeLessThan(5);
  });

  it('rejects a graph without streamEvents', async () => {
    await expect(collect(runRequest({}, ['values']))).rejects.toThrow(TypeError);
  });
});

describe('runs that need no callback event', () => {
  const CHUNK_MODES: readonly StreamMode[] = [
    'values',
    'updates',
    'messages-tuple',
    'debug',
    'custom',
    'tasks',
    'checkpoints',
  ];
  /** The graph seen only through streamEvents: the path every run took before. */
  const throughEventsOnly = (graph: { streamEvents: (...args: never[]) => unknown }) => ({
    streamEvents: graph.streamEvents.bind(graph),
  });
  const comparable = (events: readonly StreamedEvent[]) =>
    toWireLines(events).map((line) =>
      line.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z/g, '<ts>'),
    );

  it('are the runs without the events and legacy messages modes, and without subgraphs', () => {
    expect(needsCallbackEvents(CHUNK_MODES, false)).toBe(false);
    expect(needsCallbackEvents(['values', 'events'], false)).toBe(true);
    expect(needsCallbackEvents(['messages'], false)).toBe(true);
    expect(needsCallbackEvents(['values'], true)).toBe(true);
  });

  const GRAPHS = [
    ['echo', echoGraph, {}],
    ['fan-out', fanOutGraph, { input: { items: [] } }],
    ['deep', deepGraph, {}],
    ['nested', nestedGraph, {}],
    ['interrupt', interruptGraph, {}],
  ] as const;
  // Values alone: no handler of LangGraph's own asks chat models to stream, and yet they must.
  const MODE_SETS: readonly (readonly StreamMode[])[] = [['values'], ['updates'], CHUNK_MODES];
  const cases = GRAPHS.flatMap(([name, build, overrides]) =>
    MODE_SETS.map((modes) => [name, modes.join(','), build, overrides, modes] as const),
  );

  it.each(cases)(
    'stream the %s graph (%s) through graph.stream exactly as through streamEvents',
    async (_name, _modes, build, overrides, modes) => {
      const graph = build();
      const streamEvents = jest.spyOn(graph, 'streamEvents');
      const direct = await collect(runRequest(graph, modes, overrides));
      expect(streamEvents).not.toHaveBeenCalled();

      const reference = await collect(runRequest(throughEventsOnly(build()), modes, overrides));

      expect(direct.length).toBeGreaterThan(0);
      expect(comparable(direct)).toEqual(comparable(reference));
    },
  );
});
