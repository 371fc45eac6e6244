import {
  NODE_HEIGHT,
  NODE_WIDTH,
  layoutGraph,
  runningNodes,
  type GraphLayout,
  type GraphShape,
  type Point,
} from './graph-layout';

const nodes = (...ids: string[]) => ids.map((id) => ({ id }));
const edge = (source: string, target: string, conditional = false) => ({
  source,
  target,
  conditional,
});

/** The example application's `agent` graph, as the runtime draws it. */
const agent: GraphShape = {
  nodes: nodes('__start__', 'agent', 'tools', '__end__'),
  edges: [
    edge('__start__', 'agent'),
    edge('agent', 'tools', true),
    edge('agent', '__end__', true),
    edge('tools', 'agent'),
  ],
};

const chain: GraphShape = {
  nodes: nodes('__start__', 'fetch', 'parse', 'store', '__end__'),
  edges: [
    edge('__start__', 'fetch'),
    edge('fetch', 'parse'),
    edge('parse', 'store'),
    edge('store', '__end__'),
  ],
};

/** A branch, a conditional edge back up to the node that branched, and edges skipping rows. */
const branchWithBackEdge: GraphShape = {
  nodes: nodes('__start__', 'plan', 'research', 'critique', 'write', '__end__'),
  edges: [
    edge('__start__', 'plan'),
    edge('plan', 'research', true),
    edge('plan', 'write', true),
    edge('research', 'critique'),
    edge('critique', 'plan', true),
    edge('critique', 'write', true),
    edge('write', '__end__'),
    edge('plan', '__end__', true),
    edge('__start__', 'write'),
  ],
};

/** Edges both ways between two nodes, a node looping on itself, a node nothing reaches. */
const awkward: GraphShape = {
  nodes: nodes('__start__', 'a', 'b', 'retry', 'orphan', '__end__'),
  edges: [
    edge('__start__', 'a'),
    edge('a', 'b'),
    edge('b', 'a', true),
    edge('b', 'retry'),
    edge('retry', 'retry', true),
    edge('retry', '__end__'),
    edge('orphan', '__end__'),
  ],
};

type Segment = readonly [Point, Point];

function segmentsOf(points: readonly Point[]): Segment[] {
  return points.slice(1).map((point, index) => [points[index] as Point, point] as const);
}

/** Whether the segment has any point strictly inside the box (touching its border is fine). */
function entersBox([a, b]: Segment, box: { x: number; y: number }): boolean {
  const inset = 0.01;
  const [x0, x1] = [box.x + inset, box.x + NODE_WIDTH - inset];
  const [y0, y1] = [box.y + inset, box.y + NODE_HEIGHT - inset];
  let [low, high] = [0, 1];
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  for (const [p, q] of [
    [-dx, a.x - x0],
    [dx, x1 - a.x],
    [-dy, a.y - y0],
    [dy, y1 - a.y],
  ] as const) {
    if (p === 0) {
      if (q < 0) return false;
      continue;
    }
    const t = q / p;
    if (p < 0) low = Math.max(low, t);
    else high = Math.min(high, t);
    if (low > high) return false;
  }
  return high - low > 1e-9;
}

/** Whether two segments lie on one line and overlap for more than a point. */
function shareStretch([a, b]: Segment, [c, d]: Segment): boolean {
  const cross = (o: Point, p: Point, q: Point) =>
    (p.x - o.x) * (q.y - o.y) - (p.y - o.y) * (q.x - o.x);
  if (Math.abs(cross(a, b, c)) > 1e-6 || Math.abs(cross(a, b, d)) > 1e-6) return false;
  const length = Math.hypot(b.x - a.x, b.y - a.y);
  const along = (p: Point) => ((p.x - a.x) * (b.x - a.x) + (p.y - a.y) * (b.y - a.y)) / length;
  const [from, to] = [along(c), along(d)].sort((x, y) => x - y) as [number, number];
  return Math.min(length, to) - Math.max(0, from) > 1e-6;
}

function problemsOf(layout: GraphLayout): string[] {
  const problems: string[] = [];
  const name = (index: number) => {
    const drawn = layout.edges[index];
    return `${drawn?.from.id ?? '?'}->${drawn?.to.id ?? '?'}`;
  };
  layout.edges.forEach((drawn, index) => {
    for (const segment of segmentsOf(drawn.points)) {
      for (const node of layout.nodes) {
        if (entersBox(segment, node)) problems.push(`${name(index)} crosses ${node.id}`);
      }
    }
    layout.edges.slice(index + 1).forEach((other, offset) => {
      const overlapping = segmentsOf(drawn.points).some((segment) =>
        segmentsOf(other.points).some((theirs) => shareStretch(segment, theirs)),
      );
      if (overlapping) problems.push(`${name(index)} overlaps ${name(index + 1 + offset)}`);
    });
  });
  return problems;
}

function boxesOverlap(layout: GraphLayout): boolean {
  return layout.nodes.some((a, index) =>
    layout.nodes
      .slice(index + 1)
      .some(
        (b) =>
          a.x < b.x + NODE_WIDTH &&
          b.x < a.x + NODE_WIDTH &&
          a.y < b.y + NODE_HEIGHT &&
          b.y < a.y + NODE_HEIGHT,
      ),
  );
}

describe('layoutGraph', () => {
  it.each([
    ['a chain', chain],
    ['a branch with a conditional back edge and edges skipping rows', branchWithBackEdge],
    ["the example agent's graph", agent],
    ['edges both ways, a self-loop and an unreached node', awkward],
  ])('draws %s with no edge through a node and no two edges on one line', (_, graph) => {
    const layout = layoutGraph(graph);
    expect(problemsOf(layout)).toEqual([]);
    expect(boxesOverlap(layout)).toBe(false);
    expect(layout.edges).toHaveLength(graph.edges.length);
    for (const node of layout.nodes) {
      expect(node.x).toBeGreaterThanOrEqual(0);
      expect(node.x + NODE_WIDTH).toBeLessThanOrEqual(layout.width);
      expect(node.y + NODE_HEIGHT).toBeLessThanOrEqual(layout.height);
    }
    for (const drawn of layout.edges) {
      for (const point of drawn.points) {
        expect(point.x).toBeGreaterThanOrEqual(0);
        expect(point.x).toBeLessThanOrEqual(layout.width);
      }
    }
  });

  it('starts each edge on its source and ends it on its target, where the arrow goes', () => {
    const onBorder = (point: Point, node: { x: number; y: number }) =>
      point.x >= node.x &&
      point.x <= node.x + NODE_WIDTH &&
      (point.y === node.y || point.y === node.y + NODE_HEIGHT || point.x === node.x + NODE_WIDTH);
    for (const graph of [chain, branchWithBackEdge, agent, awkward]) {
      for (const drawn of layoutGraph(graph).edges) {
        expect(onBorder(drawn.points[0] as Point, drawn.from)).toBe(true);
        expect(onBorder(drawn.points.at(-1) as Point, drawn.to)).toBe(true);
      }
    }
  });

  it('puts the nodes in rows down the flow, a back edge pointing up', () => {
    const layout = layoutGraph(agent);
    const y = Object.fromEntries(layout.nodes.map((node) => [node.id, node.y]));
    expect(y['__start__']).toBeLessThan(y['agent'] ?? 0);
    expect(y['agent']).toBeLessThan(y['tools'] ?? 0);
    expect(y['tools']).toBe(y['__end__']);
    const back = layout.edges.find((drawn) => drawn.from.id === 'tools');
    expect((back?.points.at(-1)?.y ?? 0) < (back?.points[0]?.y ?? 0)).toBe(true);
    expect(layout.edges.filter((drawn) => drawn.conditional)).toHaveLength(2);
  });

  it('draws a chain as one column', () => {
    const layout = layoutGraph(chain);
    expect(new Set(layout.nodes.map((node) => node.x)).size).toBe(1);
    expect(layout.width).toBe(NODE_WIDTH);
  });

  it('keeps one edge of a pair given twice, and is empty for an empty graph', () => {
    const twice = { nodes: nodes('a', 'b'), edges: [edge('a', 'b'), edge('a', 'b', true)] };
    expect(layoutGraph(twice).edges).toEqual([expect.objectContaining({ conditional: true })]);
    expect(layoutGraph({ nodes: [], edges: [] })).toEqual({
      nodes: [],
      edges: [],
      width: 0,
      height: 0,
    });
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
