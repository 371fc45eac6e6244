import { AIMessage, AIMessageChunk, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { toJsonValue } from './json-payload.js';

/** What the reference server writes: JSON.stringify with a replacer that swaps messages for dicts. */
function referenceJson(value: unknown): unknown {
  const text = JSON.stringify(value, function (this: unknown, key: string, replaced: unknown) {
    const raw: unknown =
      typeof this === 'object' && this !== null
        ? (this as Record<string, unknown>)[key]
        : undefined;
    if (
      typeof raw === 'object' &&
      raw !== null &&
      typeof (raw as { toDict?: unknown }).toDict === 'function'
    ) {
      const { type, data } = (raw as { toDict(): { type: unknown; data: object } }).toDict();
      return { ...data, type };
    }
    return replaced;
  }) as string | undefined;
  return text === undefined ? null : JSON.parse(text);
}

class Point {
  readonly kind = 'point';
  constructor(
    readonly x: number,
    readonly onMove?: () => void,
  ) {}
}

const CASES: Record<string, unknown> = {
  'a message at the root': new AIMessage({ content: 'hi', id: 'a1' }),
  'messages in state': {
    messages: [
      new HumanMessage({ content: 'question', id: 'h1' }),
      new AIMessage({
        content: '',
        id: 'a1',
        tool_calls: [{ id: 'call', name: 'search', args: { q: 'x', at: new Date(0) } }],
      }),
      new ToolMessage({ content: 'found', tool_call_id: 'call', id: 't1' }),
      new AIMessageChunk({ content: [{ type: 'text', text: 'streamed' }], id: 'c1' }),
    ],
    step: 3,
  },
  'a message tuple': [new AIMessageChunk({ content: 'x', id: 'm' }), { langgraph_node: 'agent' }],
  'what JSON leaves out or rewrites': {
    gone: undefined,
    fn: () => 1,
    sym: Symbol('s'),
    nan: Number.NaN,
    inf: Number.POSITIVE_INFINITY,
    negativeZero: -0,
    list: [undefined, () => 1, Number.NaN, -0, Symbol('s')],
    boxed: [Object(1), Object('s'), Object(false)],
    // eslint-disable-next-line no-sparse-arrays
    holes: [1, , 3],
  },
  'toJSON with its key, and objects that are not plain': {
    at: new Date(Date.UTC(2026, 10, 25)),
    custom: { toJSON: (key: string) => ({ asKey: key, inner: new Date(0) }) },
    notCallable: { toJSON: 'kept' },
    point: new Point(2, () => undefined),
    map: new Map([['k', 1]]),
    set: new Set([1]),
    bytes: new Uint8Array([1, 2]),
    shared: [{ same: 1 }],
  },
  'a __proto__ key made by JSON.parse': JSON.parse(
    '{"__proto__": {"polluted": true}, "a": 1}',
  ) as unknown,
  'primitives at the root': 'text',
  'null at the root': null,
  'nothing at the root': undefined,
  'a function at the root': () => 1,
  'a non-finite number at the root': Number.NaN,
};

describe('toJsonValue', () => {
  it.each(Object.entries(CASES))('gives what the reference writes: %s', (_name, value) => {
    expect(toJsonValue(value)).toStrictEqual(referenceJson(value));
  });

  it('writes a message as its dict, not as LangChain’s constructor envelope', () => {
    expect(toJsonValue(new HumanMessage({ content: 'hi', id: 'h1' }))).toEqual({
      content: 'hi',
      additional_kwargs: {},
      response_metadata: {},
      id: 'h1',
      type: 'human',
    });
  });

  it('copies: the result shares no object with the value', () => {
    const value = { nested: { list: [1, { deep: true }] } };
    const copy = toJsonValue(value) as { nested: { list: [number, object] } };

    expect(copy).toEqual(value);
    expect(copy.nested).not.toBe(value.nested);
    expect(copy.nested.list[1]).not.toBe(value.nested.list[1]);
  });

  it('refuses a cycle and a BigInt as JSON.stringify does', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = { back: cyclic };

    expect(() => toJsonValue(cyclic)).toThrow(TypeError);
    expect(() => toJsonValue({ big: 1n })).toThrow(TypeError);
    expect(() => toJsonValue({ big: Object(1n) as unknown })).toThrow(TypeError);
  });

  it('asks a message for its toJSON once, the one call its toDict makes', () => {
    const message = new AIMessage({ content: 'hi', id: 'a1' });
    const toJSON = message.toJSON.bind(message);
    let calls = 0;
    Object.defineProperty(message, 'toJSON', {
      value: () => {
        calls += 1;
        return toJSON();
      },
    });

    expect(toJsonValue({ messages: [message] })).toEqual({
      messages: [expect.objectContaining({ content: 'hi', id: 'a1', type: 'ai' })],
    });
    expect(calls).toBe(1);
    referenceJson({ messages: [message] });
    expect(calls).toBe(3);
  });
});
