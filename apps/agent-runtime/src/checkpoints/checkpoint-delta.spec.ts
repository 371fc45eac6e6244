import { describe, expect, it } from '@jest/globals';
import type { JsonObject, JsonValue } from '#libs/event-store';
import { sameJson } from '../common/json-delta.js';
import { checkpointDelta, foldCheckpointDelta } from './checkpoint-delta.js';
import { CheckpointDeltaWriter } from './checkpoint-delta-writer.js';
import type { CheckpointSavedData } from './checkpoint-events.js';

const message = (id: string, content: string): JsonObject => ({
  lc: 1,
  type: 'constructor',
  id: ['langchain_core', 'messages', 'AIMessage'],
  kwargs: { id, content, tool_calls: [{ id: `call-${id}`, name: 'weather', args: { id } }] },
});

const checkpoint = (id: string, values: JsonObject): JsonObject => ({
  v: 4,
  id,
  ts: '2026-11-27T00:00:00.000Z',
  channel_values: values,
  channel_versions: { messages: id },
  versions_seen: {},
});

const LONG = 'x'.repeat(100);

function roundTrip(base: JsonObject, next: JsonObject): JsonObject {
  const delta = checkpointDelta('base', base, next);
  if (!delta) throw new Error('no delta');
  // Through the log as JSON, as an event would go.
  const stored = JSON.parse(JSON.stringify(delta)) as typeof delta;
  return foldCheckpointDelta(base, stored.value, stored.extends);
}

describe('checkpointDelta', () => {
  const a = message('a', 'one');
  const b = message('b', 'two');
  const c = message('c', 'three');

  it('stores the items a list gained, and folds back to the same JSON text', () => {
    const base = checkpoint('1', { messages: [a, b], note: LONG, step: 1 });
    const next = checkpoint('2', { messages: [a, b, c], note: LONG, step: 2 });
    const delta = checkpointDelta('1', base, next);
    expect(delta?.extends).toEqual({
      checkpoint_id: '1',
      prefixes: { messages: 2 },
      unchanged: ['note'],
    });
    expect(delta?.value['channel_values']).toEqual({ messages: [c], note: null, step: 2 });
    expect(JSON.stringify(roundTrip(base, next))).toBe(JSON.stringify(next));
  });

  it('keeps the shared part of a list that lost or replaced items after it', () => {
    const base = checkpoint('1', { messages: [a, b, c] });
    const removed = checkpoint('2', { messages: [a, c] });
    const replaced = checkpoint('3', { messages: [a, b, message('c', 'edited')] });
    expect(checkpointDelta('1', base, removed)?.extends.prefixes).toEqual({ messages: 1 });
    expect(checkpointDelta('1', base, replaced)?.extends.prefixes).toEqual({ messages: 2 });
    expect(JSON.stringify(roundTrip(base, removed))).toBe(JSON.stringify(removed));
    expect(JSON.stringify(roundTrip(base, replaced))).toBe(JSON.stringify(replaced));
  });

  it('gives nothing when no channel shares anything with the base', () => {
    const base = checkpoint('1', { messages: [a], step: 1, short: 'same' });
    expect(
      checkpointDelta('1', base, checkpoint('2', { messages: [b], step: 1, short: 'same' })),
    ).toBeUndefined();
  });

  it('stores a channel absent from the base, and a value that became a list, whole', () => {
    const base = checkpoint('1', { messages: [a], other: { kept: LONG } });
    const next = checkpoint('2', { messages: [a, b], other: [a], added: [c] });
    const delta = checkpointDelta('1', base, next);
    expect(delta?.extends).toEqual({
      checkpoint_id: '1',
      prefixes: { messages: 1 },
      unchanged: [],
    });
    expect(JSON.stringify(roundTrip(base, next))).toBe(JSON.stringify(next));
  });

  it('compares values whatever their key order (the log keeps none)', () => {
    const reordered = JSON.parse(JSON.stringify(a), (_key, value: unknown) =>
      typeof value === 'object' && value !== null && !Array.isArray(value)
        ? Object.fromEntries(Object.entries(value).reverse())
        : value,
    ) as JsonValue;
    expect(sameJson(a, reordered)).toBe(true);
    expect(sameJson(a, b)).toBe(false);
    expect(sameJson([a], [a, a])).toBe(false);
    expect(sameJson({ x: 1 }, { x: 1, y: undefined as unknown as JsonValue })).toBe(false);
  });

  it('refuses to fold onto a base that does not hold the items it names', () => {
    const delta = checkpointDelta(
      '1',
      checkpoint('1', { messages: [a, b] }),
      checkpoint('2', { messages: [a, b, c] }),
    );
    if (!delta) throw new Error('no delta');
    expect(() =>
      foldCheckpointDelta(checkpoint('1', { messages: [a] }), delta.value, delta.extends),
    ).toThrow('does not extend');
  });
});

describe('CheckpointDeltaWriter', () => {
  const saved = (id: string, parent: string | null, items: number): CheckpointSavedData => ({
    checkpoint_ns: '',
    checkpoint_id: id,
    parent_checkpoint_id: parent,
    checkpoint: {
      type: 'json',
      value: checkpoint(id, {
        messages: Array.from({ length: items }, (_, i) => message(String(i), LONG)),
      }),
    },
    metadata: { type: 'json', value: {} },
  });
  const nothingLogged = () => undefined;

  it('chains deltas on the parent it wrote last, until they took as many bytes as the whole', () => {
    const writer = new CheckpointDeltaWriter();
    const kinds: string[] = [];
    let parent: string | null = null;
    for (let i = 1; i <= 40; i += 1) {
      const data = writer.encode('t', saved(String(i), parent, 10 + i), nothingLogged);
      kinds.push(data.extends ? 'delta' : 'whole');
      parent = String(i);
    }
    expect(kinds[0]).toBe('whole');
    const wholes = kinds.filter((kind) => kind === 'whole').length;
    // About one whole per (whole bytes / delta bytes) checkpoints: far fewer than deltas.
    expect(wholes).toBeGreaterThan(1);
    expect(wholes).toBeLessThan(8);
  });

  it('ends a chain at its most deltas', () => {
    const writer = new CheckpointDeltaWriter(3);
    const kinds = ['1', '2', '3', '4', '5', '6'].map((id, i) =>
      writer.encode('t', saved(id, i === 0 ? null : String(i), 500), nothingLogged).extends
        ? 'delta'
        : 'whole',
    );
    expect(kinds).toEqual(['whole', 'delta', 'delta', 'delta', 'whole', 'delta']);
  });

  it('takes a parent it did not write from the log, and none once told to forget', () => {
    const writer = new CheckpointDeltaWriter();
    const logged = saved('1', null, 20);
    const base = {
      id: '1',
      full: (logged.checkpoint as { value: JsonObject }).value,
      chain: 0,
      chainBytes: 0,
    };
    const fromLog = writer.encode('t', saved('2', '1', 21), (_ns, id) =>
      id === '1' ? base : undefined,
    );
    expect(fromLog.extends?.checkpoint_id).toBe('1');
    writer.forget('t');
    expect(writer.encode('t', saved('3', '2', 22), nothingLogged).extends).toBeUndefined();
  });
});
