import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  AIMessage,
  HumanMessage,
  RemoveMessage,
  ToolMessage,
  type BaseMessage,
} from '@langchain/core/messages';
import {
  Annotation,
  END,
  MessagesAnnotation,
  START,
  StateGraph,
  type BaseCheckpointSaver,
} from '@langchain/langgraph';
import { copyCheckpoint, type Checkpoint } from '@langchain/langgraph-checkpoint';
import { PostgresEventStore, type JsonObject, type JsonValue } from '#libs/event-store';
import {
  CHECKPOINT_SAVED,
  checkpointStreamOf,
  EventCheckpointSaver,
  foldCheckpointEvents,
} from '../../../apps/agent-runtime/src/checkpoints/index.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';

const State = Annotation.Root({
  ...MessagesAnnotation.spec,
  /** A value no run changes: stored once per chain. */
  instructions: Annotation<string>,
  turns: Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }),
});

/**
 * Each turn: the agent asks for a tool, the tool answers, the agent answers. Every fifth turn the
 * agent also replaces its previous answer by id, every seventh it removes the turn's question.
 */
function conversation(checkpointer: BaseCheckpointSaver) {
  return new StateGraph(State)
    .addNode('agent', (state) => {
      const last = state.messages.at(-1);
      const turn = state.turns + 1;
      if (last instanceof ToolMessage) {
        const answer = new AIMessage({ id: `answer-${turn}`, content: `It is ${textOf(last)}.` });
        const previous = state.messages.findLast((m) => m.id === `answer-${turn - 1}`);
        const replaced =
          turn % 5 === 0 && previous
            ? [new AIMessage({ id: previous.id, content: `${textOf(previous)} (edited)` })]
            : [];
        return { messages: [...replaced, answer], turns: 1 };
      }
      const question = state.messages.at(-1);
      const removal =
        turn % 7 === 0 && question?.id ? [new RemoveMessage({ id: question.id })] : [];
      return {
        messages: [
          ...removal,
          new AIMessage({
            id: `call-${turn}`,
            content: '',
            tool_calls: [{ id: `tool-${turn}`, name: 'weather', args: { city: `city ${turn}` } }],
          }),
        ],
      };
    })
    .addNode('tools', (state) => {
      const call = state.messages.at(-1) as AIMessage;
      const [toolCall] = call.tool_calls ?? [];
      return {
        messages: [
          new ToolMessage({
            tool_call_id: toolCall?.id ?? '',
            content: `sunny in ${String(toolCall?.args['city'])}`,
          }),
        ],
      };
    })
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', (state) => {
      const last = state.messages.at(-1);
      return last instanceof AIMessage && (last.tool_calls?.length ?? 0) > 0 ? 'tools' : END;
    })
    .addEdge('tools', 'agent')
    .compile({ checkpointer });
}

const textOf = (message: BaseMessage): string =>
  typeof message.content === 'string' ? message.content : JSON.stringify(message.content);

const turnsOf = (values: unknown): number => (values as { turns: number }).turns;

/** The serializer's text of every checkpoint LangGraph put, by id. */
function recordPuts(saver: EventCheckpointSaver): Map<string, string> {
  const written = new Map<string, string>();
  const put = saver.put.bind(saver);
  saver.put = async (config, checkpoint, metadata, versions) => {
    const [, bytes] = await saver.serde.dumpsTyped(copyCheckpoint(checkpoint));
    written.set(checkpoint.id, new TextDecoder().decode(bytes));
    return put(config, checkpoint, metadata, versions);
  };
  return written;
}

/** JSON text with every object's keys sorted. */
function canonical(value: JsonValue): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    typeof item === 'object' && item !== null && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}

describe('checkpoints stored as what changed', () => {
  let database: TestDatabase;
  let store: PostgresEventStore;

  beforeAll(async () => {
    database = await createTestDatabase('checkpoint_deltas');
    store = await PostgresEventStore.connect({ connectionString: database.url });
  });

  afterAll(async () => {
    await store.close();
    await database.drop();
  });

  it('folds back to exactly what LangGraph wrote, on a long thread with tool calls, removals, replacements and a fork', async () => {
    const saver = new EventCheckpointSaver(store);
    const written = recordPuts(saver);
    const graph = conversation(saver);
    const threadId = randomUUID();
    const thread = { configurable: { thread_id: threadId } };
    const instructions = 'Answer about the weather, briefly and politely. '.repeat(20);
    const held = <T>(work: () => Promise<T>) => saver.storage.owned(threadId, work);
    const ask = (turn: number, config: { configurable: Record<string, string> } = thread) =>
      held(() =>
        graph.invoke(
          {
            messages: [new HumanMessage({ id: `question-${turn}`, content: `Weather ${turn}?` })],
            ...(turn === 1 ? { instructions } : {}),
          },
          config,
        ),
      );

    for (let turn = 1; turn <= 30; turn += 1) await ask(turn);
    // A fork from a checkpoint of the fourth run, then one more run on the fork's branch.
    const history = [];
    for await (const snapshot of graph.getStateHistory(thread)) history.push(snapshot);
    const old = history.find((s) => turnsOf(s.values) === 3 && s.next.length === 0);
    const oldId = old?.config.configurable?.['checkpoint_id'] as string;
    expect(oldId).toEqual(expect.any(String));
    await ask(31, { configurable: { thread_id: threadId, checkpoint_id: oldId } });
    await ask(32);

    const events = await store.readStream(checkpointStreamOf(threadId));
    const saved = events.filter((event) => event.type === CHECKPOINT_SAVED);
    expect(saved).toHaveLength(written.size);
    const deltas = saved.filter((event) => event.data['extends'] !== undefined);
    // All but the chains' heads are deltas, and a delta is a small part of its checkpoint whole.
    expect(deltas.length).toBeGreaterThan(saved.length * 0.8);
    const storedBytes = saved.reduce((sum, e) => sum + JSON.stringify(e.data).length, 0);
    const wholeBytes = [...written.values()].reduce((sum, text) => sum + text.length, 0);
    expect(storedBytes).toBeLessThan(wholeBytes / 3);
    // The fork's first checkpoint extends the old one, not the thread's latest.
    const forked = saved.find(
      (event) => event.data['parent_checkpoint_id'] === oldId && event.data['extends'],
    );
    expect((forked?.data['extends'] as JsonObject | undefined)?.['checkpoint_id']).toBe(oldId);

    // Folded from the log, every checkpoint is the JSON the serializer wrote, and read back through
    // LangGraph it serializes to that JSON again (key order aside: jsonb keeps none, whole or not).
    const folded = foldCheckpointEvents(events);
    const fresh = new EventCheckpointSaver(store);
    for (const [id, text] of written) {
      const record = folded.checkpoint('', id);
      expect(record && 'value' in record.checkpoint).toBe(true);
      if (!record || !('value' in record.checkpoint)) continue;
      expect(canonical(record.checkpoint.value)).toBe(canonical(JSON.parse(text) as JsonValue));
      const tuple = await fresh.getTuple({
        configurable: { thread_id: threadId, checkpoint_id: id },
      });
      const [, bytes] = await fresh.serde.dumpsTyped(
        copyCheckpoint(tuple?.checkpoint as Checkpoint),
      );
      expect(canonical(JSON.parse(new TextDecoder().decode(bytes)) as JsonValue)).toBe(
        canonical(JSON.parse(text) as JsonValue),
      );
    }

    // A saver that never saw the thread reads the same state and history.
    const freshGraph = conversation(fresh);
    const state = await freshGraph.getState(thread);
    expect(state.values).toEqual((await graph.getState(thread)).values);
    expect(turnsOf(state.values)).toBe(5);
    const replay = [];
    for await (const snapshot of freshGraph.getStateHistory(thread)) replay.push(snapshot.values);
    const original = [];
    for await (const snapshot of graph.getStateHistory(thread)) original.push(snapshot.values);
    expect(replay).toEqual(original);
    // What the removals and replacements did is in the state read back.
    const endOfRun30 = history.find((s) => turnsOf(s.values) === 30 && s.next.length === 0);
    const before = (await freshGraph.getState({
      configurable: {
        thread_id: threadId,
        checkpoint_id: endOfRun30?.config.configurable?.['checkpoint_id'] as string,
      },
    })) as { values: { messages: { id?: string; content: unknown }[] } };
    const ids = before.values.messages.map((m) => m.id);
    expect(ids).not.toContain('question-7');
    expect(ids).toContain('question-8');
    expect(before.values.messages.find((m) => m.id === 'answer-4')?.content).toBe(
      'It is sunny in city 4. (edited)',
    );
  });

  it('stores a checkpoint whole when nobody holds the thread, and extends such checkpoints later', async () => {
    const saver = new EventCheckpointSaver(store);
    const graph = conversation(saver);
    const threadId = randomUUID();
    const thread = { configurable: { thread_id: threadId } };
    // As every checkpoint was stored before deltas: whole.
    await graph.invoke({ messages: [new HumanMessage('one')] }, thread);
    await graph.invoke({ messages: [new HumanMessage('two')] }, thread);
    const before = await store.readStream(checkpointStreamOf(threadId));
    const whole = before.filter((event) => event.type === CHECKPOINT_SAVED);
    expect(whole.length).toBeGreaterThan(4);
    expect(whole.every((event) => event.data['extends'] === undefined)).toBe(true);
    const latest = whole.at(-1)?.data['checkpoint'] as unknown as { value: Checkpoint };
    expect(latest.value.channel_values['messages']).toHaveLength(8);

    // A run that holds the thread extends the whole checkpoints it finds in the log.
    const reader = new EventCheckpointSaver(store);
    await reader.storage.owned(threadId, () =>
      conversation(reader).invoke({ messages: [new HumanMessage('three')] }, thread),
    );
    const after = (await store.readStream(checkpointStreamOf(threadId))).slice(before.length);
    const first = after.find((event) => event.type === CHECKPOINT_SAVED);
    expect((first?.data['extends'] as JsonObject | undefined)?.['checkpoint_id']).toBe(
      latest.value.id,
    );
    const state = await conversation(new EventCheckpointSaver(store)).getState(thread);
    expect((state.values as { messages: unknown[] }).messages).toHaveLength(12);
  });
});
