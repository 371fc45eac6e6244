import { describe, expect, it } from '@jest/globals';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { JsonPlusSerializer } from '@langchain/langgraph-checkpoint';
import { decodeValue, encodeValue, readableJson, type CheckpointSerde } from './stored-value.js';

const serde = new JsonPlusSerializer();
const bytes = (text: string) => new TextEncoder().encode(text);

/** What an event store gives back: the stored JSON, parsed again. */
async function roundTrip(value: unknown, using: CheckpointSerde = serde): Promise<unknown> {
  const stored: unknown = JSON.parse(JSON.stringify(await encodeValue(using, value)));
  return decodeValue(using, stored as Parameters<typeof decodeValue>[1]);
}

describe('encodeValue', () => {
  it('keeps the serializer JSON readable', async () => {
    const value = { messages: ['hi'], count: 2, nested: { ok: true, none: null } };

    expect(await encodeValue(serde, value)).toEqual({ type: 'json', value });
  });

  it('keeps bytes as base64 with their type', async () => {
    expect(await encodeValue(serde, new Uint8Array([0, 1, 254, 255]))).toEqual({
      type: 'bytes',
      base64: 'AAH+/w==',
    });
  });

  it('falls back to base64 for JSON that jsonb refuses', async () => {
    const stored = await encodeValue(serde, { text: 'nul \u0000 and lone \ud800 surrogate' });

    expect(stored.type).toBe('json');
    expect('base64' in stored).toBe(true);
  });

  it('keeps a paired surrogate (an emoji) as JSON', async () => {
    expect(await encodeValue(serde, { text: 'ok 🚀' })).toEqual({
      type: 'json',
      value: { text: 'ok 🚀' },
    });
  });

  it('falls back to base64 when JSON would not come back byte for byte', async () => {
    const bigIntegers: CheckpointSerde = {
      dumpsTyped: () => Promise.resolve(['json', bytes('{"n":12345678901234567890}')]),
      loadsTyped: (_type, data) =>
        Promise.resolve(typeof data === 'string' ? data : new TextDecoder().decode(data)),
    };

    const stored = await encodeValue(bigIntegers, 'ignored');

    expect(stored).toEqual({ type: 'json', base64: expect.any(String) as unknown });
    expect(await decodeValue(bigIntegers, stored)).toBe('{"n":12345678901234567890}');
  });

  it("keeps a custom serializer's own type as base64", async () => {
    const custom: CheckpointSerde = {
      dumpsTyped: () => Promise.resolve(['msgpack', new Uint8Array([0x81, 0xa1, 0x61, 0x01])]),
      loadsTyped: (type, data) => Promise.resolve({ type, data }),
    };

    const stored = await encodeValue(custom, {});

    expect(stored).toEqual({ type: 'msgpack', base64: 'gaFhAQ==' });
    expect(await decodeValue(custom, stored)).toEqual({
      type: 'msgpack',
      data: new Uint8Array([0x81, 0xa1, 0x61, 0x01]),
    });
  });
});

describe('decodeValue after a store round trip', () => {
  it.each([
    ['plain JSON', { a: [1, 2.5, 'x', null, true], b: { c: {} } }],
    ['undefined inside objects', { present: 1, missing: undefined }],
    ['a Set and a Map', { set: new Set([1, 2]), map: new Map([['k', { v: 1 }]]) }],
    ['bytes', new Uint8Array([1, 2, 3])],
    ['text jsonb refuses', { text: 'a\u0000b\udc00c' }],
    ['a number at the edge of precision', { n: 2 ** 53 + 2, small: 5e-324, big: 1e300 }],
  ])('gives back %s', async (_label, value) => {
    expect(await roundTrip(value)).toEqual(value);
  });

  it('gives back LangChain messages as messages', async () => {
    const messages = [new HumanMessage({ content: 'hi', id: '1' }), new AIMessage('hello')];

    const back = (await roundTrip({ messages })) as { messages: unknown[] };

    expect(back.messages[0]).toBeInstanceOf(HumanMessage);
    expect(back.messages[1]).toBeInstanceOf(AIMessage);
    expect(back.messages).toEqual(messages);
  });
});

describe('readableJson', () => {
  it('refuses text that is not UTF-8', () => {
    expect(readableJson(new Uint8Array([0x7b, 0xff, 0x7d]))).toBeUndefined();
  });

  it('refuses text that is not JSON', () => {
    expect(readableJson(bytes('{nope'))).toBeUndefined();
  });

  it("takes LangGraph's serializer's text as it is only because checking it would change nothing", async () => {
    const awkward = {
      integerKeys: { b: 1, 10: 'ten', 2: 'two', a: 0 },
      numbers: [-0, 1e21, 5e-324, 0.1 + 0.2, 2 ** 53 + 2, -1e-7],
      ['__proto__']: { polluted: false },
      text: 'quotes " \\ \u00e9 é 漢字 🚀 \u2028 \t',
      message: new AIMessage({ content: 'hi', id: 'm1', tool_calls: [] }),
      missing: undefined,
    };
    const [, text] = await serde.dumpsTyped(awkward);

    expect(readableJson(text, true)).toEqual(readableJson(text, false));
    expect(readableJson(text, false)).not.toBeUndefined();
  });

  it('refuses JSON with whitespace it would not reproduce', () => {
    expect(readableJson(bytes('{ "a": 1 }'))).toBeUndefined();
    expect(readableJson(bytes('{"a":1}'))).toEqual({ a: 1 });
  });
});
