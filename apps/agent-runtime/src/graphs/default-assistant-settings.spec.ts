import { describe, expect, it } from '@jest/globals';
import { defaultAssistantSettings } from './default-assistant-settings.js';

describe('defaultAssistantSettings', () => {
  it("splits each graph's entry into the assistant's config and its context", () => {
    const settings = defaultAssistantSettings(
      JSON.stringify({
        agent: { configurable: { model_name: 'openai' }, tags: ['env'] },
        simple_runtime: { context: { model: 'unknown' } },
      }),
    );
    expect(settings('agent')).toEqual({
      config: { configurable: { model_name: 'openai' }, tags: ['env'] },
      context: {},
    });
    expect(settings('simple_runtime')).toEqual({ config: {}, context: { model: 'unknown' } });
  });

  it('gives empty settings to a graph it does not name, and to all when unset or blank', () => {
    expect(defaultAssistantSettings('{"agent": {}}')('other')).toEqual({ config: {}, context: {} });
    expect(defaultAssistantSettings(undefined)('agent')).toEqual({ config: {}, context: {} });
    expect(defaultAssistantSettings('  ')('agent')).toEqual({ config: {}, context: {} });
  });

  it.each([
    ['{not json', /^LANGGRAPH_CONFIG is not valid JSON: /],
    ['["agent"]', /^LANGGRAPH_CONFIG must be a JSON object keyed by graph id$/],
    ['{"agent": "openai"}', /^LANGGRAPH_CONFIG\.agent must be an object/],
    ['{"agent": {"context": [1]}}', /^LANGGRAPH_CONFIG\.agent\.context must be an object$/],
  ])('refuses %s, saying why', (text, message) => {
    expect(() => defaultAssistantSettings(text)).toThrow(message);
  });
});
