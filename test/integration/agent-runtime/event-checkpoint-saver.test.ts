import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as langgraph from '@langchain/langgraph';
import {
  Annotation,
  Command,
  END,
  interrupt,
  MemorySaver,
  Send,
  START,
  StateGraph,
  type BaseCheckpointSaver,
  type StateSnapshot,
} from '@langchain/langgraph';
import { uuid6 } from '@langchain/langgraph-checkpoint';
import pg from 'pg';
import { PostgresEventStore } from '#libs/event-store';
import {
  CHECKPOINT_SAVED,
  CHECKPOINT_WRITES_SAVED,
  createEventCheckpointSaver,
  EventCheckpointSaver,
  type StoredJson,
} from '../../../apps/agent-runtime/src/checkpoints/index.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';

const reduceList = {
  reducer: (left: string[], right: string[]) => [...left, ...right],
  default: (): string[] => [],
};

const FanOutState = Annotation.Root({
  topic: Annotation<string>,
  item: Annotation<string>,
  log: Annotation<string[]>(reduceList),
  rounds: Annotation<number>,
});

/** Plans, fans out with `Send`s, loops twice through `review`, then reports. */
function fanOutGraph(checkpointer: BaseCheckpointSaver) {
  return new StateGraph(FanOutState)
    .addNode('plan', (state) => ({ log: [`plan ${state.topic}`], rounds: 0 }))
    .addNode('work', (state) => ({ log: [`work ${state.item}`] }))
    .addNode('review', (state) => ({ log: [`review ${state.rounds}`], rounds: state.rounds + 1 }))
    .addNode('report', (state) => ({ log: [`report of ${state.log.length}`] }))
    .addEdge(START, 'plan')
    .addConditionalEdges('plan', (state) =>
      ['a', 'b', 'c'].map((item) => new Send('work', { ...state, item })),
    )
    .addEdge('work', 'review')
    .addConditionalEdges('review', (state) => (state.rounds < 2 ? 'review' : 'report'), [
      'review',
      'report',
    ])
    .addEdge('report', END)
    .compile({ checkpointer });
}

const ReviewState = Annotation.Root({
  draft: Annotation<string>,
  log: Annotation<string[]>(reduceList),
});

/**
 * `fast` and `ask` run in the same step; `ask` interrupts. Resuming must reuse `fast`'s pending
 * writes instead of running it again.
 */
function interruptGraph(checkpointer: BaseCheckpointSaver, runs: { fast: number }) {
  return new StateGraph(ReviewState)
    .addNode('fast', () => {
      runs.fast += 1;
      return { log: ['fast'] };
    })
    .addNode('ask', (state) => {
      const answer = interrupt<{ question: string }, string>({ question: `ok ${state.draft}?` });
      return { log: [`answer ${answer}`] };
    })
    .addNode('publish', (state) => ({ log: [`published ${state.draft}`] }))
    .addEdge(START, 'fast')
    .addEdge(START, 'ask')
    .addEdge(['fast', 'ask'], 'publish')
    .addEdge('publish', END)
    .compile({ checkpointer });
}

const ResearchState = Annotation.Root({
  topic: Annotation<string>,
  notes: Annotation<string[]>(reduceList),
});

/** A subgraph that interrupts: its checkpoints live in their own namespace. */
function subgraphGraph(checkpointer: BaseCheckpointSaver) {
  const research = new StateGraph(ResearchState)
    .addNode('search', (state) => ({ notes: [`searched ${state.topic}`] }))
    .addNode('confirm', () => ({ notes: [`confirmed: ${interrupt<string, string>('go on?')}`] }))
    .addEdge(START, 'search')
    .addEdge('search', 'confirm')
    .addEdge('confirm', END)
    .compile();
  return new StateGraph(ResearchState)
    .addNode('plan', (state) => ({ notes: [`plan ${state.topic}`] }))
    .addNode('research', research)
    .addNode('report', (state) => ({ notes: [`report of ${state.notes.length}`] }))
    .addEdge(START, 'plan')
    .addEdge('plan', 'research')
    .addEdge('research', 'report')
    .addEdge('report', END)
    .compile({ checkpointer });
}

interface Thread {
  readonly configurable: { thread_id: string };
}

const newThread = (): Thread => ({ configurable: { thread_id: randomUUID() } });

async function all<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

const checkpointIdOf = (config: StateSnapshot['config'] | undefined) =>
  config?.configurable?.['checkpoint_id'] as string | undefined;

/** A snapshot without its ids: parents as indexes into the history, interrupts by value. */
function comparable(snapshot: StateSnapshot, ids: (string | undefined)[]) {
  const parentId = checkpointIdOf(snapshot.parentConfig);
  return {
    values: snapshot.values as unknown,
    next: snapshot.next,
    metadata: {
      ...snapshot.metadata,
      thread_id: undefined,
      parents: Object.keys(snapshot.metadata?.parents ?? {}),
    },
    parent: parentId === undefined ? null : ids.indexOf(parentId),
    tasks: snapshot.tasks.map((task) => ({
      name: task.name,
      path: task.path,
      error: task.error,
      interrupts: task.interrupts.map((i) => i.value as unknown),
      result: task.result,
    })),
  };
}

async function comparableHistory(
  graph: { getStateHistory: (config: Thread) => AsyncIterableIterator<StateSnapshot> },
  thread: Thread,
) {
  const history = await all(graph.getStateHistory(thread));
  const ids = history.map((s) => checkpointIdOf(s.config));
  return history.map((s) => comparable(s, ids));
}

describe('EventCheckpointSaver on PostgreSQL', () => {
  let database: TestDatabase;
  let store: PostgresEventStore;
  let client: pg.Client;

  beforeAll(async () => {
    database = await createTestDatabase('checkpoints');
    store = await PostgresEventStore.connect({ connectionString: database.url });
    client = new pg.Client(database.url);
    await client.connect();
  });

  afterAll(async () => {
    await client.end();
    await store.close();
    await database.drop();
  });

  it('gives the same state and history as MemorySaver', async () => {
    const thread = newThread();
    const ours = fanOutGraph(new EventCheckpointSaver(store));
    const reference = fanOutGraph(new MemorySaver());

    const result = await ours.invoke({ topic: 'cats' }, thread);
    expect(result).toEqual(await reference.invoke({ topic: 'cats' }, thread));
    expect(result.log).toEqual([
      'plan cats',
      'work a',
      'work b',
      'work c',
      'review 0',
      'review 1',
      'report of 6',
    ]);

    const state = await ours.getState(thread);
    expect(comparable(state, [])).toEqual(comparable(await reference.getState(thread), []));
    const history = await comparableHistory(ours, thread);
    expect(history).toEqual(await comparableHistory(reference, thread));
    expect(history.map((s) => [s.metadata.source, s.metadata.step, s.parent])).toEqual([
      ['loop', 5, 1],
      ['loop', 4, 2],
      ['loop', 3, 3],
      ['loop', 2, 4],
      ['loop', 1, 5],
      ['loop', 0, 6],
      ['input', -1, null],
    ]);

    // A second run on the same thread continues from the stored state.
    await ours.invoke({ topic: 'dogs' }, thread);
    await reference.invoke({ topic: 'dogs' }, thread);
    expect(await comparableHistory(fanOutGraph(new EventCheckpointSaver(store)), thread)).toEqual(
      await comparableHistory(reference, thread),
    );
  });

  it('stores checkpoints and writes as JSON an auditor can query', async () => {
    const thread = newThread();
    await fanOutGraph(new EventCheckpointSaver(store)).invoke({ topic: 'audit' }, thread);

    const { rows } = await client.query<{ event_type: string; data: Record<string, unknown> }>(
      `select event_type, data from es_events where stream_id = $1 order by stream_position`,
      [`checkpoints-${thread.configurable.thread_id}`],
    );
    expect(new Set(rows.map((r) => r.event_type))).toEqual(
      new Set([CHECKPOINT_SAVED, CHECKPOINT_WRITES_SAVED]),
    );
    const { rows: last } = await client.query<{ log: unknown; step: unknown }>(
      `select data #> '{checkpoint,value,channel_values,log}' as log,
              data #> '{metadata,value,step}' as step
         from es_events where stream_id = $1 and event_type = $2
        order by stream_position desc limit 1`,
      [`checkpoints-${thread.configurable.thread_id}`, CHECKPOINT_SAVED],
    );
    expect(last[0]?.step).toBe(5);
    expect(last[0]?.log).toEqual(expect.arrayContaining(['plan audit', 'report of 6']));
    const sends = rows.find(
      (r) =>
        r.event_type === CHECKPOINT_WRITES_SAVED &&
        (r.data['writes'] as { channel: string }[]).some((w) => w.channel === '__pregel_tasks'),
    );
    expect(sends?.data['writes']).toEqual(
      expect.arrayContaining([
        {
          channel: '__pregel_tasks',
          idx: expect.any(Number) as unknown,
          value: { type: 'json', value: expect.objectContaining({ node: 'work' }) as unknown },
        },
      ]),
    );
  });

  it('resumes an interrupted run from the log with a fresh saver', async () => {
    const thread = newThread();
    const runs = { fast: 0 };
    const referenceRuns = { fast: 0 };
    const reference = interruptGraph(new MemorySaver(), referenceRuns);
    const first = interruptGraph(new EventCheckpointSaver(store), runs);

    await first.invoke({ draft: 'd1' }, thread);
    await reference.invoke({ draft: 'd1' }, thread);
    const interrupted = await first.getState(thread);
    expect(interrupted.next).toEqual(['ask']);
    expect(interrupted.tasks.map((t) => t.interrupts.map((i) => i.value as unknown))).toEqual([
      [],
      [{ question: 'ok d1?' }],
    ]);
    expect(comparable(interrupted, [])).toEqual(comparable(await reference.getState(thread), []));

    const events = await store.readStream(`checkpoints-${thread.configurable.thread_id}`);
    const interruptWrite = events
      .filter((e) => e.type === CHECKPOINT_WRITES_SAVED)
      .flatMap((e) => e.data['writes'] as { channel: string; idx: number; value: StoredJson }[])
      .find((w) => w.channel === '__interrupt__');
    expect(interruptWrite?.idx).toBe(-3);
    expect(interruptWrite?.value.value).toEqual([
      expect.objectContaining({ value: { question: 'ok d1?' } }),
    ]);

    const resumed = interruptGraph(new EventCheckpointSaver(store), runs);
    const result = await resumed.invoke(new Command({ resume: 'yes' }), thread);
    const referenceResult = await reference.invoke(new Command({ resume: 'yes' }), thread);

    expect(result).toEqual(referenceResult);
    // A step's writes apply in task path order: `ask` before `fast`.
    expect(result.log).toEqual(['answer yes', 'fast', 'published d1']);
    expect(runs.fast).toBe(1);
    expect(referenceRuns.fast).toBe(1);
    expect(await comparableHistory(resumed, thread)).toEqual(
      await comparableHistory(reference, thread),
    );
  });

  it('resumes an interrupted subgraph from its own namespace', async () => {
    const thread = newThread();
    const reference = subgraphGraph(new MemorySaver());
    await subgraphGraph(new EventCheckpointSaver(store)).invoke({ topic: 'owls' }, thread);
    await reference.invoke({ topic: 'owls' }, thread);

    const resumed = subgraphGraph(new EventCheckpointSaver(store));
    const state = await resumed.getState(thread, { subgraphs: true });
    const referenceState = await reference.getState(thread, { subgraphs: true });
    const inner = state.tasks[0]?.state as StateSnapshot | undefined;
    expect(inner?.values).toEqual({ topic: 'owls', notes: ['plan owls', 'searched owls'] });
    expect(inner?.next).toEqual(['confirm']);
    expect(comparable(inner ?? state, [])).toEqual(
      comparable((referenceState.tasks[0]?.state as StateSnapshot | undefined) ?? state, []),
    );
    const namespaces = new Set(
      (await store.readStream(`checkpoints-${thread.configurable.thread_id}`)).map(
        (e) => e.data['checkpoint_ns'],
      ),
    );
    expect([...namespaces].some((ns) => typeof ns === 'string' && ns.startsWith('research:'))).toBe(
      true,
    );

    const result = await resumed.invoke(new Command({ resume: 'sure' }), thread);
    expect(result).toEqual(await reference.invoke(new Command({ resume: 'sure' }), thread));
    // The subgraph returns its whole state: the list reducer appends the parent's note again.
    expect(result.notes).toEqual([
      'plan owls',
      'plan owls',
      'searched owls',
      'confirmed: sure',
      'report of 4',
    ]);
  });

  it('lists with limit, before and a metadata filter', async () => {
    const thread = newThread();
    const saver = new EventCheckpointSaver(store);
    await fanOutGraph(saver).invoke({ topic: 'lists' }, thread);
    const steps = async (options?: Parameters<BaseCheckpointSaver['list']>[1]) =>
      (await all(saver.list(thread, options))).map((t) => t.metadata?.step);

    expect(await steps()).toEqual([5, 4, 3, 2, 1, 0, -1]);
    expect(await steps({ limit: 2 })).toEqual([5, 4]);
    const [, , third] = await all(saver.list(thread));
    expect(third?.metadata?.step).toBe(3);
    expect(await steps({ before: third?.config, limit: 2 })).toEqual([2, 1]);
    expect(await steps({ filter: { source: 'input' } })).toEqual([-1]);
    expect(await steps({ filter: { step: 2 } })).toEqual([2]);
    expect(await steps({ filter: { source: 'loop' }, limit: 3 })).toEqual([5, 4, 3]);
    expect(await steps({ filter: { source: 'update' } })).toEqual([]);
  });

  it('deletes a thread', async () => {
    const thread = newThread();
    const other = newThread();
    const saver = new EventCheckpointSaver(store);
    const graph = fanOutGraph(saver);
    await graph.invoke({ topic: 'gone' }, thread);
    await graph.invoke({ topic: 'kept' }, other);

    await saver.deleteThread(thread.configurable.thread_id);

    expect(await store.readStream(`checkpoints-${thread.configurable.thread_id}`)).toEqual([]);
    expect((await graph.getState(thread)).values).toEqual({});
    expect(await all(saver.list(thread))).toEqual([]);
    expect(await all(new EventCheckpointSaver(store).list(thread))).toEqual([]);
    expect((await graph.getState(other)).values).toMatchObject({ topic: 'kept' });
  });

  it('reads one short query for a getTuple right after a put', async () => {
    const thread = newThread();
    const counting = countingReads(store);
    const saver = new EventCheckpointSaver(counting.store);
    await fanOutGraph(saver).invoke({ topic: 'cheap' }, thread);
    const tuple = await saver.getTuple(thread);
    if (!tuple) throw new Error('the run saved no checkpoint');
    const checkpoint = { ...tuple.checkpoint, id: uuid6(-1) };
    await saver.put(tuple.config, checkpoint, { source: 'update', step: 5, parents: {} }, {});
    counting.reads.length = 0;

    expect((await saver.getTuple(thread))?.checkpoint.id).toBe(checkpoint.id);
    expect(counting.reads).toEqual([1]);
  });

  it('extends the BaseCheckpointSaver of the copy of LangGraph it is given', async () => {
    const thread = newThread();
    const saver = createEventCheckpointSaver(langgraph, store);
    expect(saver).toBeInstanceOf(langgraph.BaseCheckpointSaver);

    const result = await fanOutGraph(saver).invoke({ topic: 'copy' }, thread);
    expect(result.log.at(-1)).toBe('report of 6');
  });
});

/** The store, counting the events each stream read returns. */
function countingReads(inner: PostgresEventStore) {
  const reads: number[] = [];
  const proxy = new Proxy(inner, {
    get(target, property, receiver) {
      if (property === 'readStream') {
        return async (...args: Parameters<PostgresEventStore['readStream']>) => {
          const events = await target.readStream(...args);
          reads.push(events.length);
          return events;
        };
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function'
        ? (value as (...a: unknown[]) => unknown).bind(target)
        : value;
    },
  });
  return { store: proxy, reads };
}
