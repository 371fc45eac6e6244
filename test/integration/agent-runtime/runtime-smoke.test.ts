import { describe, expect, it } from '@jest/globals';
import { runtimeSuite } from '../../support/runtime-suite.js';

describe('agent runtime over HTTP with the official SDK', () => {
  const suite = runtimeSuite('runtime_smoke');

  it('runs the example agent on a thread: a tool call, then the answer', async () => {
    const thread = await suite.client.threads.create();
    const result = (await suite.client.runs.wait(thread.thread_id, 'agent', {
      input: { messages: [{ role: 'user', content: 'What is the weather in Oslo?' }] },
    })) as { messages: { type: string; content: string; tool_calls?: { name: string }[] }[] };

    expect(result.messages.map((m) => m.type)).toEqual(['human', 'ai', 'tool', 'ai']);
    expect(result.messages[1]?.tool_calls?.[0]?.name).toBe('get_weather');
    expect(result.messages[3]?.content).toContain('Oslo');
    const runs = await suite.client.runs.list(thread.thread_id);
    expect(runs.map((run) => run.status)).toEqual(['success']);
    expect((await suite.client.threads.get(thread.thread_id)).status).toBe('idle');
  });
});
