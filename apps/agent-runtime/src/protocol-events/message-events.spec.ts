import { describe, expect, it } from '@jest/globals';
import { MessageEvents } from './message-events.js';

const where = { namespace: [], node: 'agent' };
const names = (events: { data: { event?: unknown } }[]): unknown[] =>
  events.map((one) => one.data.event);

describe('MessageEvents', () => {
  it('opens a streamed message once, adds each chunk as a delta and closes it on its last chunk', () => {
    const messages = new MessageEvents();
    const first = messages.translate({ id: 'm1', type: 'ai', content: 'Hel' }, where);
    const second = messages.translate({ id: 'm1', type: 'ai', content: 'lo' }, where);
    const last = messages.translate(
      {
        id: 'm1',
        type: 'ai',
        content: '',
        response_metadata: { finish_reason: 'stop' },
        usage_metadata: { input_tokens: 3, output_tokens: 2, total_tokens: 5 },
      },
      where,
    );
    expect(names(first)).toEqual(['message-start', 'content-block-start', 'content-block-delta']);
    expect(first[0]?.data).toEqual({ event: 'message-start', role: 'ai', id: 'm1' });
    expect(second.map((one) => one.data)).toEqual([
      { event: 'content-block-delta', index: 0, delta: { type: 'text-delta', text: 'lo' } },
    ]);
    expect(last.map((one) => one.data)).toEqual([
      { event: 'content-block-finish', index: 0, content: { type: 'text', text: 'Hello' } },
      {
        event: 'message-finish',
        usage: { input_tokens: 3, output_tokens: 2, total_tokens: 5 },
      },
    ]);
    expect(messages.translate({ id: 'm1', type: 'ai', content: 'again' }, where)).toEqual([]);
  });

  it('gives text then tool calls as blocks that never interleave, each call parsed when it ends', () => {
    const messages = new MessageEvents();
    const events = [
      ...messages.translate({ id: 'm2', type: 'ai', content: 'Let me look.' }, where),
      ...messages.translate(
        {
          id: 'm2',
          type: 'ai',
          content: '',
          tool_call_chunks: [{ id: 'c1', name: 'search', args: '{"q":', index: 0 }],
        },
        where,
      ),
      ...messages.translate(
        { id: 'm2', type: 'ai', content: '', tool_call_chunks: [{ args: '"tea"}', index: 0 }] },
        where,
      ),
      ...messages.translate(
        {
          id: 'm2',
          type: 'ai',
          content: '',
          tool_call_chunks: [{ id: 'c2', name: 'clock', args: '{oops', index: 1 }],
        },
        where,
      ),
      ...messages.finishNode(where),
    ];
    const finished = events
      .filter((one) => one.data.event === 'content-block-finish')
      .map((one) => one.data.content);
    expect(finished).toEqual([
      { type: 'text', text: 'Let me look.' },
      { type: 'tool_call', id: 'c1', name: 'search', args: { q: 'tea' } },
      {
        type: 'invalid_tool_call',
        id: 'c2',
        name: 'clock',
        args: '{oops',
        error: 'arguments are not JSON',
      },
    ]);
    const starts = events.filter((one) => one.data.event === 'content-block-start');
    expect(starts.map((one) => one.data.index)).toEqual([0, 1, 2]);
    expect(names(events).at(-1)).toBe('message-finish');
  });

  it('tells a message that comes whole (tool calls included) and closes what a run leaves open', () => {
    const messages = new MessageEvents();
    const whole = messages.translate(
      {
        id: 'm3',
        type: 'ai',
        content: '',
        tool_calls: [{ id: 'c1', name: 'get_weather', args: { city: 'Oslo' } }],
      },
      where,
    );
    expect(whole.map((one) => one.data)).toContainEqual({
      event: 'content-block-delta',
      index: 0,
      delta: { type: 'tool-call-delta', args: '{"city":"Oslo"}' },
    });
    const tool = messages.translate(
      { id: 't1', type: 'tool', content: 'Sunny' },
      { namespace: ['tools:1'] },
    );
    expect(tool[0]?.data).toEqual({ event: 'message-start', role: 'tool', id: 't1' });
    const closing = messages.finishAll();
    expect(closing.map((one) => [one.data.event, one.where.namespace])).toEqual([
      ['content-block-finish', []],
      ['message-finish', []],
      ['content-block-finish', ['tools:1']],
      ['message-finish', ['tools:1']],
    ]);
  });
});
