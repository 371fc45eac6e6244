import { describe, expect, it } from '@jest/globals';
import { EntitySchema } from 'typeorm';
import type { JsonObject, RecordedEvent } from '../event-store.port.js';
import { foldBatch, rowsToRead } from './fold-batch.js';
import type { Projection } from './projection.js';

interface AccountRow {
  account_id: string;
  balance: number;
  /** The event ids folded into the row, in order: shows what evolve saw. */
  applied: string[];
}

const AccountEntity = new EntitySchema<AccountRow>({
  name: 'test_account',
  columns: {
    account_id: { type: 'text', primary: true },
    balance: { type: 'integer' },
    applied: { type: 'simple-array' },
  },
});

function accountOf(event: RecordedEvent): string | undefined {
  const account = event.data.account;
  return typeof account === 'string' ? account : undefined;
}

/** Every call to evolve, so a test can see which events reached the fold. */
const evolved: string[] = [];

const accounts: Projection<AccountRow> = {
  name: 'test_accounts',
  entity: AccountEntity,
  key: 'account_id',
  keyOf: accountOf,
  evolve: (row, event) => {
    evolved.push(event.eventId);
    const amount = typeof event.data.amount === 'number' ? event.data.amount : 0;
    switch (event.type) {
      case 'Opened':
        return { account_id: accountOf(event) ?? '', balance: 0, applied: [event.eventId] };
      case 'Deposited':
        if (!row) throw new Error(`deposit into a missing account: ${event.eventId}`);
        return { ...row, balance: row.balance + amount, applied: [...row.applied, event.eventId] };
      case 'Doubled':
        if (!row) throw new Error(`doubling a missing account: ${event.eventId}`);
        return { ...row, balance: row.balance * 2, applied: [...row.applied, event.eventId] };
      case 'Closed':
        return undefined;
      default:
        return row;
    }
  },
};

let sequence = 0;

function event(id: string, type: string, data: JsonObject): RecordedEvent {
  sequence += 1;
  return {
    eventId: id,
    type,
    streamId: 'accounts',
    streamPosition: sequence,
    logPosition: { commit: BigInt(sequence), prepare: BigInt(sequence) },
    data,
    metadata: {},
    recordedAt: new Date('2026-01-01T00:00:00Z'),
  };
}

function row(account_id: string, balance: number, applied: string[] = []): AccountRow {
  return { account_id, balance, applied };
}

function fold(existing: readonly AccountRow[], batch: readonly RecordedEvent[]) {
  evolved.length = 0;
  return foldBatch(accounts, existing, batch);
}

describe('foldBatch', () => {
  it('folds every event that touches a row, in batch order', () => {
    // (0 + 5) * 2 + 1 = 11, but (0 + 1) * 2 + 5 = 7 and 0 * 2 + 5 + 1 = 6: order matters.
    const result = fold(
      [],
      [
        event('e1', 'Opened', { account: 'a' }),
        event('e2', 'Deposited', { account: 'a', amount: 5 }),
        event('e3', 'Doubled', { account: 'a' }),
        event('e4', 'Deposited', { account: 'a', amount: 1 }),
      ],
    );

    expect(result).toEqual({ upserts: [row('a', 11, ['e1', 'e2', 'e3', 'e4'])], deletes: [] });
  });

  it('starts each row from its existing version', () => {
    const result = fold(
      [row('a', 10, ['old']), row('b', 100, ['old'])],
      [
        event('e1', 'Deposited', { account: 'b', amount: 1 }),
        event('e2', 'Doubled', { account: 'a' }),
        event('e3', 'Doubled', { account: 'b' }),
      ],
    );

    expect(result.upserts).toEqual(
      expect.arrayContaining([row('a', 20, ['old', 'e2']), row('b', 202, ['old', 'e1', 'e3'])]),
    );
    expect(result.upserts).toHaveLength(2);
    expect(result.deletes).toEqual([]);
  });

  it('returns one upsert per touched row, however many events touched it', () => {
    const result = fold(
      [],
      [
        event('e1', 'Opened', { account: 'a' }),
        event('e2', 'Opened', { account: 'b' }),
        event('e3', 'Deposited', { account: 'a', amount: 3 }),
        event('e4', 'Deposited', { account: 'b', amount: 4 }),
        event('e5', 'Deposited', { account: 'a', amount: 5 }),
      ],
    );

    expect(result.upserts.map((upsert) => upsert.account_id).sort()).toEqual(['a', 'b']);
    expect(result.upserts.find((upsert) => upsert.account_id === 'a')).toEqual(
      row('a', 8, ['e1', 'e3', 'e5']),
    );
    expect(result.upserts.find((upsert) => upsert.account_id === 'b')).toEqual(
      row('b', 4, ['e2', 'e4']),
    );
  });

  it('ignores events whose keyOf is undefined: they are never evolved', () => {
    const result = fold(
      [row('a', 1)],
      [
        event('noise-1', 'Deposited', { amount: 1000 }),
        event('e1', 'Deposited', { account: 'a', amount: 2 }),
        event('noise-2', 'Closed', { account: 42 }),
      ],
    );

    expect(evolved).toEqual(['e1']);
    expect(result).toEqual({ upserts: [row('a', 3, ['e1'])], deletes: [] });
  });

  it('shows a projection that names its event types no event of another type', () => {
    evolved.length = 0;
    const depositsOnly = { ...accounts, eventTypes: new Set(['Deposited']) };

    const result = foldBatch(
      depositsOnly,
      [row('a', 1)],
      [
        event('e1', 'Deposited', { account: 'a', amount: 2 }),
        event('e2', 'Doubled', { account: 'a' }),
      ],
    );

    expect(evolved).toEqual(['e1']);
    expect(result).toEqual({ upserts: [row('a', 3, ['e1'])], deletes: [] });
  });

  it('returns nothing when no event in the batch concerns the projection', () => {
    const result = fold([row('a', 1)], [event('noise', 'Closed', {})]);

    expect(result).toEqual({ upserts: [], deletes: [] });
    expect(evolved).toEqual([]);
  });

  it('puts a row whose evolve returns undefined in deletes, not upserts', () => {
    const result = fold(
      [row('a', 1), row('b', 2)],
      [
        event('e1', 'Deposited', { account: 'a', amount: 5 }),
        event('e2', 'Closed', { account: 'a' }),
        event('e3', 'Deposited', { account: 'b', amount: 5 }),
      ],
    );

    expect(result).toEqual({ upserts: [row('b', 7, ['e3'])], deletes: ['a'] });
  });

  it('upserts a row deleted and then created again in the same batch', () => {
    const result = fold(
      [row('a', 50, ['old'])],
      [
        event('e1', 'Closed', { account: 'a' }),
        event('e2', 'Opened', { account: 'a' }),
        event('e3', 'Deposited', { account: 'a', amount: 1 }),
      ],
    );

    expect(result).toEqual({ upserts: [row('a', 1, ['e2', 'e3'])], deletes: [] });
  });

  it('passes undefined to evolve for a row that was deleted earlier in the batch', () => {
    expect(() =>
      fold(
        [row('a', 50)],
        [event('e1', 'Closed', { account: 'a' }), event('e2', 'Doubled', { account: 'a' })],
      ),
    ).toThrow('doubling a missing account: e2');
  });

  it('leaves untouched existing rows out of both lists', () => {
    const result = fold(
      [row('a', 1), row('untouched', 9), row('c', 3)],
      [event('e1', 'Closed', { account: 'c' }), event('e2', 'Doubled', { account: 'a' })],
    );

    expect(result.upserts).toEqual([row('a', 2, ['e2'])]);
    expect(result.deletes).toEqual(['c']);
    expect(JSON.stringify(result)).not.toContain('untouched');
  });
});

describe('rowsToRead', () => {
  const opening = { ...accounts, makesRowAnew: new Set(['Opened']) };

  it('reads every touched row once when the projection makes no row anew', () => {
    const keys = rowsToRead(accounts, [
      event('e1', 'Opened', { account: 'a' }),
      event('e2', 'Deposited', { account: 'b', amount: 1 }),
      event('e3', 'Deposited', { account: 'a', amount: 1 }),
      event('noise', 'Deposited', { amount: 1 }),
    ]);

    expect(keys).toEqual(['a', 'b']);
  });

  it('does not read a row whose first event in the batch makes it anew', () => {
    const keys = rowsToRead(opening, [
      event('e1', 'Opened', { account: 'a' }),
      event('e2', 'Deposited', { account: 'a', amount: 1 }),
      event('e3', 'Deposited', { account: 'b', amount: 1 }),
    ]);

    expect(keys).toEqual(['b']);
  });

  it('reads a row that an event before its making anew still folds', () => {
    const keys = rowsToRead(opening, [
      event('e1', 'Deposited', { account: 'a', amount: 1 }),
      event('e2', 'Opened', { account: 'a' }),
    ]);

    expect(keys).toEqual(['a']);
  });
});
