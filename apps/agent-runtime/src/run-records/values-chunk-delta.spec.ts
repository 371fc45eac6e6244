import { describe, expect, it } from '@jest/globals';
import type { JsonObject } from '#libs/event-store';
import { foldObjectDelta } from '../common/json-delta.js';
import { WHOLE } from '../common/delta-chain.js';
import { chunkExtensionOf, ValuesChunkEncoder } from './values-chunk-delta.js';

const state = (messages: number): JsonObject => ({
  messages: Array.from({ length: messages }, (_, i) => ({ type: 'ai', content: `message ${i}` })),
});

describe('ValuesChunkEncoder', () => {
  it('stores each values chunk after the first as what changed since the one before', () => {
    const encoder = new ValuesChunkEncoder();
    expect(encoder.encode(1, 'values', state(3))).toEqual({ data: state(3) });
    const second = encoder.encode(2, 'values', state(4));
    expect(second.extends).toEqual({ seq: 1, head: 1, prefixes: { messages: 3 }, unchanged: [] });
    if (!second.extends) throw new Error('no delta');
    const folded = foldObjectDelta(state(3), {
      value: second.data as JsonObject,
      ...second.extends,
    });
    expect(folded).toEqual(state(4));
    expect(encoder.encode(3, 'updates', { agent: state(1) })).toEqual({
      data: { agent: state(1) },
    });
    expect(encoder.encode(4, 'values', state(5)).extends).toMatchObject({ seq: 2, head: 1 });
  });

  it('keeps a chain per name: a subgraph chunk does not extend the root one', () => {
    const encoder = new ValuesChunkEncoder();
    encoder.encode(1, 'values', state(3));
    expect(encoder.encode(2, 'values|child:1', state(4)).extends).toBeUndefined();
    expect(encoder.encode(3, 'values|child:1', state(5)).extends).toMatchObject({ seq: 2 });
  });

  it("extends the thread's earlier run's final values with the run's first root chunk only", () => {
    const encoder = new ValuesChunkEncoder({ runId: 'earlier', values: state(8), chain: WHOLE });
    expect(encoder.encode(1, 'values|child:1', state(9)).extends).toBeUndefined();
    expect(encoder.encode(2, 'values', state(9)).extends).toEqual({
      run: 'earlier',
      seq: -1,
      head: 2,
      prefixes: { messages: 8 },
      unchanged: [],
    });
    expect(encoder.encode(3, 'values', state(10)).extends).toMatchObject({ seq: 2, head: 2 });
  });

  it('stores a chunk whole when it shares nothing, and starts a new chain there', () => {
    const encoder = new ValuesChunkEncoder();
    encoder.encode(1, 'values', state(3));
    expect(encoder.encode(2, 'values', { other: 1 }).extends).toBeUndefined();
    expect(encoder.encode(3, 'values', { other: 1, messages: [] })).toEqual({
      data: { other: 1, messages: [] },
    });
  });
});

describe('ValuesChunkEncoder.encodeFinal', () => {
  it("stores the run's final values as what changed since its last root chunk", () => {
    const encoder = new ValuesChunkEncoder();
    encoder.encode(1, 'values', state(3));
    encoder.encode(2, 'values', state(4));
    const final = encoder.encodeFinal(state(4));
    expect(final.values_extends).toEqual({
      seq: 2,
      head: 1,
      prefixes: { messages: 4 },
      unchanged: [],
    });
    expect(final.values).toEqual({ messages: [] });
    expect(final.chain.chain).toBe(2);
    // Not a chunk: the next chunk still extends chunk 2.
    expect(encoder.encode(3, 'values', state(5)).extends).toMatchObject({ seq: 2 });
  });

  it("extends the earlier run's final values when the run sent no values chunk", () => {
    const encoder = new ValuesChunkEncoder({
      runId: 'earlier',
      values: state(4),
      chain: { chain: 3, chainBytes: 100 },
    });
    const final = encoder.encodeFinal(state(6));
    expect(final.values_extends).toMatchObject({ run: 'earlier', seq: -1 });
    expect(final.chain.chain).toBe(4);
  });

  it('stores final values that are not an object, or share nothing, whole', () => {
    expect(new ValuesChunkEncoder().encodeFinal(null)).toMatchObject({ values_extends: null });
    const encoder = new ValuesChunkEncoder();
    encoder.encode(1, 'values', state(3));
    expect(encoder.encodeFinal({ other: 1 })).toMatchObject({
      values: { other: 1 },
      values_extends: null,
      chain: WHOLE,
    });
  });
});

describe('chunkExtensionOf', () => {
  it('reads a stored extension and refuses a malformed one', () => {
    const extension = { seq: 1, head: 0, prefixes: { messages: 2 }, unchanged: [] };
    expect(chunkExtensionOf({ seq: 2, extends: extension })).toEqual(extension);
    expect(chunkExtensionOf({ seq: 2 })).toBeUndefined();
    expect(() => chunkExtensionOf({ extends: { ...extension, head: 5 } })).toThrow('chunk numbers');
    expect(() =>
      chunkExtensionOf({ extends: { ...extension, prefixes: { messages: -1 } } }),
    ).toThrow('prefixes');
    expect(() => chunkExtensionOf({ extends: { ...extension, run: 7 } })).toThrow('run id');
  });
});
