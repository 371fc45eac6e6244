import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { handleCommand, PostgresEventStore, type Decider } from '#libs/event-store';
import { conflict } from '#libs/http';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';

type CounterEvent = { readonly type: 'Added'; readonly data: { by: number; writer: number } };
type CounterCommand = { readonly add: number; readonly writer: number; readonly limit?: number };

const counter: Decider<{ total: number }, CounterCommand, CounterEvent> = {
  initialState: { total: 0 },
  evolve: (state, event) => ({ total: state.total + event.data.by }),
  decide: (command, state) => {
    if (command.limit !== undefined && state.total + command.add > command.limit) {
      throw conflict(`The total would pass ${command.limit}`);
    }
    if (command.add === 0) return [];
    return [{ type: 'Added', data: { by: command.add, writer: command.writer } }];
  },
};

describe('handleCommand on the PostgreSQL event store', () => {
  let database: TestDatabase;
  let store: PostgresEventStore;

  beforeAll(async () => {
    database = await createTestDatabase('handle_command');
    store = await PostgresEventStore.connect({ connectionString: database.url });
  });

  afterAll(async () => {
    await store.close();
    await database.drop();
  });

  it('lands every one of many concurrent commands on one stream, each decided on the state before it', async () => {
    const stream = `counter-${randomUUID()}`;
    const writers = 24;
    const outcomes = await Promise.all(
      Array.from({ length: writers }, (_, writer) =>
        handleCommand(store, stream, counter, { add: 1, writer }, { writer }),
      ),
    );
    const stored = await store.readStream(stream);
    expect(stored.map((event) => event.streamPosition)).toEqual(
      Array.from({ length: writers }, (_, index) => index),
    );
    expect(new Set(stored.map((event) => event.data.writer)).size).toBe(writers);
    expect(outcomes.map((outcome) => outcome.state.total).sort((a, b) => a - b)).toEqual(
      Array.from({ length: writers }, (_, index) => index + 1),
    );
    expect(stored.every((event) => event.metadata.writer === event.data.writer)).toBe(true);
  });

  it('re-decides after losing a race, so a rule on the state holds under contention', async () => {
    const stream = `counter-${randomUUID()}`;
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, writer) =>
        handleCommand(store, stream, counter, { add: 1, writer, limit: 3 }),
      ),
    );
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(3);
    const refused = results.filter((result) => result.status === 'rejected');
    expect(refused).toHaveLength(7);
    for (const result of refused) {
      expect(result.reason).toMatchObject({ code: 'conflict' });
    }
    expect(await store.readStream(stream)).toHaveLength(3);
  });

  it('appends nothing when the decision is no event', async () => {
    const stream = `counter-${randomUUID()}`;
    const outcome = await handleCommand(store, stream, counter, { add: 0, writer: 0 });
    expect(outcome).toMatchObject({ events: [], appended: undefined, state: { total: 0 } });
    expect(await store.readStream(stream)).toEqual([]);
  });
});
