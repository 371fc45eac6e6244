import { describe, expect, it } from '@jest/globals';
import { assistantTools, TOOL_NAME_MAX, validToolName, type ToolAssistant } from './tool-names.js';

const assistant = (fields: Partial<ToolAssistant>): ToolAssistant => ({
  assistant_id: 'a1',
  graph_id: 'agent',
  name: null,
  description: null,
  metadata: {},
  ...fields,
});

describe('assistantTools', () => {
  it('names a system assistant by its graph and others by their own name, made valid', () => {
    const tools = assistantTools([
      assistant({ name: 'agent', metadata: { created_by: 'system' } }),
      assistant({ assistant_id: 'a2', name: 'Météo du jour!', description: 'The weather.' }),
    ]);
    expect(tools.map((tool) => tool.name)).toEqual(['agent', 'M_t_o_du_jour']);
    expect(tools[0]?.description).toMatch(/graph "agent"/);
    expect(tools[1]?.description).toBe('The weather.');
  });

  it('gives every name to one assistant only, the first keeping it', () => {
    const tools = assistantTools([
      assistant({ graph_id: 'agent', metadata: { created_by: 'system' } }),
      assistant({ assistant_id: 'a2', name: 'agent' }),
      assistant({ assistant_id: 'a3', name: 'agent?' }),
    ]);
    expect(tools.map((tool) => tool.name)).toEqual(['agent', 'agent_2', 'agent_3']);
  });

  it('falls back on the graph id when nothing of the name is left, and keeps names short', () => {
    expect(assistantTools([assistant({ name: '***' })])[0]?.name).toBe('agent');
    const long = 'x'.repeat(100);
    const [first, second] = assistantTools([
      assistant({ name: long }),
      assistant({ assistant_id: 'a2', name: long }),
    ]);
    expect(first?.name).toHaveLength(TOOL_NAME_MAX);
    expect(second?.name).toHaveLength(TOOL_NAME_MAX);
    expect(second?.name.endsWith('_2')).toBe(true);
    expect(validToolName('a b--c')).toBe('a_b--c');
  });
});
