import { AIMessage } from '@langchain/core/messages';
import { FakeListChatModel } from '@langchain/core/utils/testing';
import {
  Annotation,
  Command,
  END,
  MemorySaver,
  MessagesAnnotation,
  START,
  StateGraph,
  getWriter,
  interrupt,
} from '@langchain/langgraph';
import {
  streamGraphRun,
  type GraphCommand,
  type GraphRunRequest,
  type StreamMode,
  type StreamedEvent,
} from '../graph-stream.js';

/* Graphs, configs and helpers shared by the stream specs (graph-stream.spec, and the reference check in test/integration). */

export const RUN_ID = '01a20200-cc42-74d6-816e-706d7f19e612';
export const THREAD_ID = '01a20200-cbd6-764f-a647-344b4c724942';
export const ASSISTANT_ID = '046b5dc7-2108-582c-9c6c-31d556d138f0';
export const HUMAN_HI = { messages: [{ role: 'human', content: 'hi' }] };

/** A run's config as the reference server's run creation builds it. */
export function runConfig(graphId: string): { configurable: object; metadata: object } {
  return {
    configurable: {
      graph_id: graphId,
      assistant_id: ASSISTANT_ID,
      thread_id: THREAD_ID,
      run_id: RUN_ID,
    },
    metadata: { created_by: 'system', graph_id: graphId, assistant_id: ASSISTANT_ID },
  };
}

/**
 * The config of a run as executed (see the captures' message metadata): the reference adds
 * run_attempt, langgraph_version/plan/host/api_url to the metadata when it starts the graph.
 * The null checkpoint_id of a run record means the latest checkpoint.
 */
export function serverConfig(
  graphId: string,
  apiUrl: string | null = 'http://127.0.0.1:2124',
): Record<string, unknown> {
  const { configurable, metadata } = runConfig(graphId);
  return {
    configurable: { ...configurable, checkpoint_id: null },
    metadata: {
      ...metadata,
      run_attempt: 1,
      langgraph_version: '1.7.3',
      langgraph_plan: 'developer',
      langgraph_host: 'self-hosted',
      ...(apiUrl === null ? {} : { langgraph_api_url: apiUrl }),
    },
  };
}

/** Builds a LangGraph `Command` as the application's own class would. */
export function buildCommand(command: GraphCommand): Command {
  return new Command(command as ConstructorParameters<typeof Command>[0]);
}

export function runRequest(
  graph: unknown,
  streamModes: readonly StreamMode[],
  overrides: Partial<GraphRunRequest> = {},
): GraphRunRequest {
  return {
    graph,
    input: HUMAN_HI,
    createCommand: buildCommand,
    config: serverConfig('g'),
    streamModes,
    subgraphs: false,
    signal: new AbortController().signal,
    ...overrides,
  };
}

export async function collect(request: GraphRunRequest): Promise<StreamedEvent[]> {
  const events: StreamedEvent[] = [];
  for await (const event of streamGraphRun(request)) events.push(event);
  return events;
}

/** `event data` lines with random ids masked, comparable to the reference captures. */
export function toWireLines(events: readonly StreamedEvent[]): string[] {
  return events.map(({ event, data }) =>
    `${event} ${JSON.stringify(data)}`
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>')
      .replace(/"[0-9a-f]{32}"/g, '"<hex>"'),
  );
}

export function namesOf(events: readonly StreamedEvent[]): string[] {
  return events.map(({ event }) => event);
}

export function dataOf(events: readonly StreamedEvent[], name: string): unknown[] {
  return events.filter(({ event }) => event === name).map(({ data }) => data);
}

export function echoGraph() {
  const model = new FakeListChatModel({ responses: ['echo: hi'] });
  return new StateGraph(MessagesAnnotation)
    .addNode('echo', async (state) => ({ messages: [await model.invoke(state.messages)] }))
    .addEdge(START, 'echo')
    .addEdge('echo', END)
    .compile({ checkpointer: new MemorySaver() });
}

export function nestedGraph() {
  const child = new StateGraph(MessagesAnnotation)
    .addNode('child_node', () => ({ messages: [new AIMessage('from child')] }))
    .addEdge(START, 'child_node')
    .compile();
  return new StateGraph(MessagesAnnotation)
    .addNode('parent_node', () => ({ messages: [new AIMessage('from parent')] }))
    .addNode('sub', child)
    .addEdge(START, 'parent_node')
    .addEdge('parent_node', 'sub')
    .addEdge('sub', END)
    .compile({ checkpointer: new MemorySaver() });
}

export function deepGraph() {
  const grandchild = new StateGraph(MessagesAnnotation)
    .addNode('leaf', () => {
      getWriter()?.({ depth: 2 });
      return { messages: [new AIMessage('from leaf')] };
    })
    .addEdge(START, 'leaf')
    .compile();
  const child = new StateGraph(MessagesAnnotation)
    .addNode('inner', grandchild)
    .addEdge(START, 'inner')
    .compile();
  return new StateGraph(MessagesAnnotation)
    .addNode('outer', child)
    .addEdge(START, 'outer')
    .compile({ checkpointer: new MemorySaver() });
}

const NameState = Annotation.Root({ ...MessagesAnnotation.spec, name: Annotation<string>() });

export function interruptGraph() {
  return new StateGraph(NameState)
    .addNode('ask', () => ({
      name: interrupt<{ question: string }, string>({ question: 'what is your name?' }),
    }))
    .addNode('greet', (state) => ({ messages: [new AIMessage(`hello ${state.name}`)] }))
    .addEdge(START, 'ask')
    .addEdge('ask', 'greet')
    .addEdge('greet', END)
    .compile({ checkpointer: new MemorySaver() });
}

export const ItemsState = Annotation.Root({
  items: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
});

export function fanOutGraph() {
  return new StateGraph(ItemsState)
    .addNode('a', () => ({ items: ['a'] }))
    .addNode('b', () => ({ items: ['b'] }))
    .addNode('join', (_state, config) => {
      config.writer({ progress: 'joining' });
      return { items: ['join'] };
    })
    .addEdge(START, 'a')
    .addEdge(START, 'b')
    .addEdge('a', 'join')
    .addEdge('b', 'join')
    .addEdge('join', END)
    .compile({ checkpointer: new MemorySaver() });
}

// Metadata that the reference run's config contributes to every `messages` tuple.
export const SERVER_METADATA = (graphId: string) =>
  `"created_by":"system","graph_id":"${graphId}","assistant_id":"<uuid>","run_attempt":1,` +
  `"langgraph_version":"1.7.3","langgraph_plan":"developer","langgraph_host":"self-hosted",` +
  `"langgraph_api_url":"http://127.0.0.1:2124","thread_id":"<uuid>","run_id":"<uuid>"`;

// Node metadata of LangGraph (`langgraph_*`) as in the captures, plus our `graph_node`.
export const NODE_METADATA = (node: string, ns = '') =>
  `"langgraph_step":1,"langgraph_node":"${node}","langgraph_triggers":["branch:to:${node}"],` +
  `"langgraph_path":["__pregel_pull","${node}"],"langgraph_checkpoint_ns":"${ns}${node}:<uuid>",` +
  `"checkpoint_ns":"${ns}${node}:<uuid>"`;
