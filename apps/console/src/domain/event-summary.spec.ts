import { messageText, summarizeEvent } from './event-summary';

const human = { type: 'human', content: 'What is the weather in Oslo?', id: 'h1' };
const call = {
  type: 'ai',
  content: '',
  id: 'a1',
  tool_calls: [{ name: 'get_weather', args: { city: 'Oslo' }, id: 'c1' }],
};
const answer = { type: 'ai', content: 'It is 12 °C and clear in Oslo.', id: 'a2' };

describe('summarizeEvent', () => {
  it('says which node updated what, and a tool call with its arguments', () => {
    expect(summarizeEvent({ event: 'updates', data: { agent: { messages: [call] } } })).toEqual({
      mode: 'updates',
      namespace: null,
      node: 'agent',
      text: 'ai calls get_weather({"city":"Oslo"})',
    });
  });

  it('sums up a state by its messages and the last of them', () => {
    expect(
      summarizeEvent({ event: 'values', data: { messages: [human, call, answer] } }).text,
    ).toBe('3 messages, the last ai: "It is 12 °C and clear in Oslo."');
  });

  it('names the node of a streamed token and the subgraph of a namespaced event', () => {
    const token = summarizeEvent({
      event: 'messages|tools:3f2a',
      data: [{ type: 'AIMessageChunk', content: 'It is' }, { langgraph_node: 'agent' }],
    });
    expect(token).toEqual({
      mode: 'messages',
      namespace: 'tools:3f2a',
      node: 'agent',
      text: 'AIMessageChunk: "It is"',
    });
  });

  it('says an interrupt, an error and the start of the run plainly', () => {
    expect(
      summarizeEvent({ event: 'updates', data: { __interrupt__: [{ value: 'name?' }] } }).text,
    ).toBe('interrupted: [{"value":"name?"}]');
    expect(
      summarizeEvent({ event: 'error', data: { error: 'ValueError', message: 'no city' } }).text,
    ).toBe('ValueError: no city');
    expect(summarizeEvent({ event: 'metadata', data: { run_id: 'r-1', attempt: 1 } }).text).toBe(
      'run r-1 started',
    );
  });

  it('clips long content and keeps text parts of block content', () => {
    const long = 'word '.repeat(100);
    expect(messageText({ type: 'ai', content: long }).length).toBeLessThan(160);
    expect(
      messageText({ type: 'ai', content: [{ type: 'text', text: 'Hello' }, { type: 'image' }] }),
    ).toBe('ai: "Hello"');
  });
});
