import { describe, expect, it } from '@jest/globals';
import { END, START, StateGraph, interrupt, MemorySaver } from '@langchain/langgraph';
import { summarizeState, type StateSnapshotLike } from '../threads/thread-state.resource.js';
import { FinalStateTracker } from './final-state.js';
import type { GraphRunRequest, StreamMode } from './graph-stream.js';
import {
  ItemsState,
  THREAD_ID,
  collect,
  deepGraph,
  echoGraph,
  fanOutGraph,
  interruptGraph,
  runRequest,
} from './testing/graph-stream-fixtures.js';

interface StatefulGraph {
  getState(config: object): Promise<unknown>;
}

/** Runs the graph with a tracker; its answer, what getState reads back, and the events. */
async function runTracked(
  graph: StatefulGraph,
  modes: readonly StreamMode[],
  overrides: Partial<GraphRunRequest> = {},
) {
  const finalState = new FinalStateTracker();
  const events = await collect(runRequest(graph, modes, { ...overrides, finalState }));
  const read = (await graph.getState({
    configurable: { thread_id: THREAD_ID },
  })) as StateSnapshotLike;
  return { tracked: finalState.snapshot(), read, events };
}

function expectSameSummary(tracked: StateSnapshotLike | undefined, read: StateSnapshotLike) {
  expect(tracked).toBeDefined();
  expect(summarizeState(tracked as StateSnapshotLike)).toEqual(summarizeState(read));
}

/** Two branches from the start: both ask, or one asks while the other writes. */
function branchesGraph(bothAsk: boolean) {
  return new StateGraph(ItemsState)
    .addNode('asks', () => ({ items: [interrupt<string, string>('first?')] }))
    .addNode('other', () =>
      bothAsk ? { items: [interrupt<string, string>('second?')] } : { items: ['wrote'] },
    )
    .addEdge(START, 'asks')
    .addEdge(START, 'other')
    .addEdge('asks', END)
    .addEdge('other', END)
    .compile({ checkpointer: new MemorySaver() });
}

describe('FinalStateTracker: the state a run ends with, from its own stream', () => {
  it.each<[string, readonly StreamMode[]]>([
    ['values', ['values']],
    ['updates (no values chunk to read it from)', ['updates']],
    ['the legacy messages mode (callback events)', ['messages', 'values']],
  ])('equals getState after a run that completes, streaming %s', async (_, modes) => {
    const { tracked, read } = await runTracked(echoGraph(), modes);
    expectSameSummary(tracked, read);
    expect(tracked?.next).toEqual([]);
  });

  it('equals getState after a node interrupts, then after the resume completes the run', async () => {
    const graph = interruptGraph();
    const asked = await runTracked(graph, ['values']);
    expectSameSummary(asked.tracked, asked.read);
    expect(summarizeState(asked.tracked as StateSnapshotLike)).toMatchObject({
      next: ['ask'],
      interrupts: {
        [asked.read.tasks[0]?.id ?? '']: [
          expect.objectContaining({ value: { question: 'what is your name?' } }),
        ],
      },
    });

    const resumed = await runTracked(graph, ['values'], {
      input: null,
      command: { resume: 'Ada' },
    });
    expectSameSummary(resumed.tracked, resumed.read);
  });

  it('equals getState when the run stops before a node', async () => {
    const { tracked, read } = await runTracked(interruptGraph(), ['updates'], {
      interruptBefore: ['ask'],
    });
    expectSameSummary(tracked, read);
    expect(tracked?.next).toEqual(['ask']);
  });

  it('equals getState when parallel tasks all interrupt', async () => {
    const { tracked, read } = await runTracked(branchesGraph(true), ['values']);
    expectSameSummary(tracked, read);
    expect(Object.keys(summarizeState(read).interrupts)).toHaveLength(2);
  });

  it('equals getState after a fan-out and join', async () => {
    const { tracked, read } = await runTracked(fanOutGraph(), ['values']);
    expectSameSummary(tracked, read);
  });

  it('knows no answer when a task wrote beside an interrupted one (only the saved state applies its writes)', async () => {
    const { tracked, read } = await runTracked(branchesGraph(false), ['values']);
    expect(tracked).toBeUndefined();
    expect(summarizeState(read).values).toEqual({ items: ['wrote'] });
  });

  it('knows no answer when the run stops after a node (the step after the last streamed checkpoint)', async () => {
    const { tracked, read } = await runTracked(echoGraph(), ['values'], {
      interruptAfter: ['echo'],
    });
    expect(tracked).toBeUndefined();
    expect(read.next).toEqual([]);
  });

  it('is not told with subgraphs or exit durability, which then read the state', async () => {
    expect(
      (await runTracked(deepGraph(), ['values'], { subgraphs: true })).tracked,
    ).toBeUndefined();
    expect(
      (await runTracked(echoGraph(), ['values'], { durability: 'exit' })).tracked,
    ).toBeUndefined();
  });

  it.each<[string, readonly StreamMode[]]>([
    ['values', ['values']],
    ['updates and messages tuples', ['updates', 'messages-tuple']],
    ['the legacy messages mode', ['messages']],
    ['tasks (asked for by the client too)', ['tasks']],
    ['checkpoints (asked for by the client too)', ['checkpoints']],
    ['debug', ['debug']],
  ])('leaves what the client receives unchanged (%s)', async (_, modes) => {
    const masked = (events: unknown) =>
      JSON.stringify(events)
        .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>')
        .replace(/"[0-9a-f]{32}"/g, '<hex>')
        .replace(/"\d{4}-\d\d-\d\dT[^"]+"/g, '"<time>"');
    const plain = await collect(runRequest(interruptGraph(), modes));
    const { events } = await runTracked(interruptGraph(), modes);
    expect(masked(events)).toEqual(masked(plain));
  });
});
