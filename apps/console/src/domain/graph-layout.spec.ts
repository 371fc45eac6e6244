import { layoutGraph, runningNodes } from './graph-layout';

const agent = {
  nodes: [{ id: '__start__' }, { id: 'agent' }, { id: 'tools' }, { id: '__end__' }],
  edges: [
    { source: '__start__', target: 'agent' },
    { source: 'agent', target: 'tools', conditional: true },
    { source: 'agent', target: '__end__', conditional: true },
    { source: 'tools', target: 'agent' },
  ],
};

describe('layoutGraph', () => {
  it('puts each node in the row of its distance from the start, edges between them', () => {
    const layout = layoutGraph(agent);
    const y = Object.fromEntries(layout.nodes.map((node) => [node.id, node.y]));
    expect(y['__start__']).toBeLessThan(y['agent'] ?? 0);
    expect(y['tools']).toBe(y['__end__']);
    expect(layout.edges).toHaveLength(4);
    expect(layout.edges.filter((edge) => edge.conditional)).toHaveLength(2);
    for (const node of layout.nodes) {
      expect(node.x).toBeGreaterThanOrEqual(0);
      expect(node.y).toBeLessThanOrEqual(layout.height);
    }
  });
});

describe('runningNodes', () => {
  it('is the tasks started and not finished', () => {
    expect(
      runningNodes([
        { id: 't1', name: 'agent', input: {} } as never,
        { id: 't1', name: 'agent', result: {} },
        { id: 't2', name: 'tools', input: {} } as never,
      ]),
    ).toEqual(new Set(['tools']));
  });
});
