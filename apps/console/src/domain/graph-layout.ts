/** An assistant's graph as `GET /assistants/{id}/graph` gives it (the SDK's AssistantGraph). */
export interface GraphShape {
  readonly nodes: readonly { readonly id: string | number; readonly name?: string }[];
  readonly edges: readonly {
    readonly source: string;
    readonly target: string;
    readonly conditional?: boolean;
  }[];
}

export interface Point {
  readonly x: number;
  readonly y: number;
}

export interface PlacedNode {
  readonly id: string;
  readonly x: number;
  readonly y: number;
}

export interface PlacedEdge {
  readonly from: PlacedNode;
  readonly to: PlacedNode;
  readonly conditional: boolean;
  /** The line drawn, from `from`'s border to `to`'s (where the arrow goes). */
  readonly points: readonly Point[];
}

export interface GraphLayout {
  readonly nodes: readonly PlacedNode[];
  readonly edges: readonly PlacedEdge[];
  readonly width: number;
  readonly height: number;
}

export const NODE_WIDTH = 132;
export const NODE_HEIGHT = 34;
const COLUMN_GAP = 28;
const ROW_GAP = 46;
/** The slot an edge passes a row through when it spans more than one. */
const PASSAGE_WIDTH = 12;
/** How far right of its node an edge from the node to itself reaches. */
const LOOP_REACH = 14;
const ORDERING_SWEEPS = 4;

interface Edge {
  readonly source: string;
  readonly target: string;
  readonly conditional: boolean;
}

/** An edge drawn downwards: from `upper` to `lower` through a passage in each row between. */
interface Chain {
  readonly edge: Edge;
  readonly upper: string;
  readonly lower: string;
  readonly reversed: boolean;
  readonly passages: string[];
}

function distinctEdges(graph: GraphShape, ids: ReadonlySet<string>): Edge[] {
  const byKey = new Map<string, Edge>();
  for (const { source, target, conditional } of graph.edges) {
    if (!ids.has(source) || !ids.has(target)) continue;
    const key = JSON.stringify([source, target]);
    const conditionalToo = byKey.get(key)?.conditional === true || conditional === true;
    byKey.set(key, { source, target, conditional: conditionalToo });
  }
  return [...byKey.values()];
}

/**
 * The edges that close a cycle (a depth-first walk from `__start__` meets a node still on its
 * path): drawn reversed, every edge points down and the rows can follow the flow.
 */
function cycleClosingEdges(ids: readonly string[], edges: readonly Edge[]): Set<Edge> {
  const outgoing = new Map<string, Edge[]>(ids.map((id) => [id, []]));
  for (const edge of edges) outgoing.get(edge.source)?.push(edge);
  const state = new Map<string, 'on-path' | 'done'>();
  const closing = new Set<Edge>();
  const roots = ids.includes('__start__') ? ['__start__', ...ids] : ids;
  for (const root of roots) {
    if (state.has(root)) continue;
    state.set(root, 'on-path');
    const path: { id: string; next: number }[] = [{ id: root, next: 0 }];
    while (path.length > 0) {
      const top = path[path.length - 1] as { id: string; next: number };
      const edge = outgoing.get(top.id)?.[top.next];
      if (edge === undefined) {
        state.set(top.id, 'done');
        path.pop();
        continue;
      }
      top.next += 1;
      const seen = state.get(edge.target);
      if (seen === 'on-path') closing.add(edge);
      else if (seen === undefined) {
        state.set(edge.target, 'on-path');
        path.push({ id: edge.target, next: 0 });
      }
    }
  }
  return closing;
}

/** Each node's row: the longest path to it from a node nothing points to (edges all point down). */
function rowsOf(
  ids: readonly string[],
  downward: readonly [string, string][],
): Map<string, number> {
  const below = new Map<string, string[]>(ids.map((id) => [id, []]));
  const pointedTo = new Map<string, number>(ids.map((id) => [id, 0]));
  for (const [upper, lower] of downward) {
    below.get(upper)?.push(lower);
    pointedTo.set(lower, (pointedTo.get(lower) ?? 0) + 1);
  }
  const row = new Map<string, number>();
  const ready = ids.filter((id) => pointedTo.get(id) === 0);
  for (const id of ready) row.set(id, 0);
  for (let head = 0; head < ready.length; head += 1) {
    const id = ready[head] as string;
    for (const lower of below.get(id) ?? []) {
      row.set(lower, Math.max(row.get(lower) ?? 0, (row.get(id) ?? 0) + 1));
      const left = (pointedTo.get(lower) ?? 0) - 1;
      pointedTo.set(lower, left);
      if (left === 0) ready.push(lower);
    }
  }
  return row;
}

/** Orders each row by where its neighbours above (then below) sit, so fewer edges cross. */
function orderRows(rows: string[][], neighbours: ReadonlyMap<string, Set<string>>): void {
  const sortRow = (row: string[], by: readonly string[]) => {
    const at = new Map(by.map((item, index) => [item, index]));
    const key = new Map(
      row.map((item, index) => {
        const near = [...(neighbours.get(item) ?? [])].flatMap((other) => {
          const position = at.get(other);
          return position === undefined ? [] : [position];
        });
        const centre = near.length === 0 ? index : near.reduce((a, b) => a + b, 0) / near.length;
        return [item, centre] as const;
      }),
    );
    row.sort((a, b) => (key.get(a) ?? 0) - (key.get(b) ?? 0));
  };
  for (let sweep = 0; sweep < ORDERING_SWEEPS; sweep += 1) {
    for (let r = 1; r < rows.length; r += 1) sortRow(rows[r] as string[], rows[r - 1] as string[]);
    for (let r = rows.length - 2; r >= 0; r -= 1) {
      sortRow(rows[r] as string[], rows[r + 1] as string[]);
    }
  }
}

/** Evenly spread points along a node's side, one per edge, in the order given. */
function ports(left: number, count: number): number[] {
  return Array.from(
    { length: count },
    (_, index) => left + (NODE_WIDTH * (index + 1)) / (count + 1),
  );
}

/**
 * A layered drawing: rows follow the flow from `__start__` (an edge closing a cycle is laid out
 * reversed, its arrow still at its target); an edge spanning rows passes each row between through
 * a slot of its own; each edge leaves and enters its nodes at a point of its own. So no edge
 * crosses a node and no two edges share a stretch of line.
 */
export function layoutGraph(graph: GraphShape): GraphLayout {
  const ids = graph.nodes.map((node) => String(node.id));
  if (ids.length === 0) return { nodes: [], edges: [], width: 0, height: 0 };
  const edges = distinctEdges(graph, new Set(ids));
  const closing = cycleClosingEdges(ids, edges);
  const loops = edges.filter((edge) => edge.source === edge.target);
  const chains: Chain[] = edges
    .filter((edge) => edge.source !== edge.target)
    .map((edge) => {
      const reversed = closing.has(edge);
      return {
        edge,
        reversed,
        upper: reversed ? edge.target : edge.source,
        lower: reversed ? edge.source : edge.target,
        passages: [],
      };
    });
  const rowOf = rowsOf(
    ids,
    chains.map((chain) => [chain.upper, chain.lower]),
  );
  const rowCount = Math.max(...rowOf.values()) + 1;
  const rows: string[][] = Array.from({ length: rowCount }, () => []);
  for (const id of ids) rows[rowOf.get(id) ?? 0]?.push(id);
  const neighbours = new Map<string, Set<string>>();
  const link = (a: string, b: string) => {
    neighbours.set(a, (neighbours.get(a) ?? new Set()).add(b));
    neighbours.set(b, (neighbours.get(b) ?? new Set()).add(a));
  };
  chains.forEach((chain, index) => {
    let previous = chain.upper;
    for (let r = (rowOf.get(chain.upper) ?? 0) + 1; r < (rowOf.get(chain.lower) ?? 0); r += 1) {
      const passage = `\u0000${index}:${r}`;
      chain.passages.push(passage);
      rows[r]?.push(passage);
      link(previous, passage);
      previous = passage;
    }
    link(previous, chain.lower);
  });
  orderRows(rows, neighbours);

  const isNode = new Set(ids);
  const widthOf = (item: string) => (isNode.has(item) ? NODE_WIDTH : PASSAGE_WIDTH);
  const rowWidths = rows.map(
    (row) => row.reduce((sum, item) => sum + widthOf(item), 0) + (row.length - 1) * COLUMN_GAP,
  );
  const contentWidth = Math.max(...rowWidths);
  const left = new Map<string, number>();
  const top = new Map<string, number>();
  rows.forEach((row, r) => {
    let x = (contentWidth - (rowWidths[r] ?? 0)) / 2;
    for (const item of row) {
      left.set(item, x);
      top.set(item, r * (NODE_HEIGHT + ROW_GAP));
      x += widthOf(item) + COLUMN_GAP;
    }
  });
  const centre = (item: string) => (left.get(item) ?? 0) + widthOf(item) / 2;

  const downPort = new Map<Chain, number>();
  const upPort = new Map<Chain, number>();
  for (const id of ids) {
    const byOtherEnd = (list: Chain[], otherEnd: (chain: Chain) => string) =>
      list
        .map((chain, index) => ({ chain, index, x: centre(otherEnd(chain)) }))
        .sort((a, b) => a.x - b.x || a.index - b.index)
        .map(({ chain }) => chain);
    const leaving = byOtherEnd(
      chains.filter((chain) => chain.upper === id),
      (chain) => chain.passages[0] ?? chain.lower,
    );
    const entering = byOtherEnd(
      chains.filter((chain) => chain.lower === id),
      (chain) => chain.passages.at(-1) ?? chain.upper,
    );
    const x = left.get(id) ?? 0;
    ports(x, leaving.length).forEach((port, index) => downPort.set(leaving[index] as Chain, port));
    ports(x, entering.length).forEach((port, index) => upPort.set(entering[index] as Chain, port));
  }

  const placed = new Map<string, PlacedNode>(
    ids.map((id) => [id, { id, x: left.get(id) ?? 0, y: top.get(id) ?? 0 }]),
  );
  const placedEdges: PlacedEdge[] = [];
  for (const chain of chains) {
    const line: Point[] = [
      { x: downPort.get(chain) ?? 0, y: (top.get(chain.upper) ?? 0) + NODE_HEIGHT },
      ...chain.passages.flatMap((passage) => [
        { x: centre(passage), y: top.get(passage) ?? 0 },
        { x: centre(passage), y: (top.get(passage) ?? 0) + NODE_HEIGHT },
      ]),
      { x: upPort.get(chain) ?? 0, y: top.get(chain.lower) ?? 0 },
    ];
    placedEdges.push({
      from: placed.get(chain.edge.source) as PlacedNode,
      to: placed.get(chain.edge.target) as PlacedNode,
      conditional: chain.edge.conditional,
      points: chain.reversed ? line.reverse() : line,
    });
  }
  for (const loop of loops) {
    const node = placed.get(loop.source) as PlacedNode;
    const right = node.x + NODE_WIDTH;
    const out = right + LOOP_REACH;
    placedEdges.push({
      from: node,
      to: node,
      conditional: loop.conditional,
      points: [
        { x: right, y: node.y + NODE_HEIGHT * 0.3 },
        { x: out, y: node.y + NODE_HEIGHT * 0.3 },
        { x: out, y: node.y + NODE_HEIGHT * 0.7 },
        { x: right, y: node.y + NODE_HEIGHT * 0.7 },
      ],
    });
  }
  return {
    nodes: [...placed.values()],
    edges: placedEdges,
    width: contentWidth + (loops.length > 0 ? LOOP_REACH : 0),
    height: rowCount * NODE_HEIGHT + (rowCount - 1) * ROW_GAP,
  };
}

/** The nodes running now: tasks started and not yet reported finished (`tasks` events). */
export function runningNodes(
  tasks: readonly { readonly id?: unknown; readonly name?: unknown; readonly result?: unknown }[],
): Set<string> {
  const running = new Map<string, string>();
  for (const task of tasks) {
    if (typeof task.id !== 'string' || typeof task.name !== 'string') continue;
    if ('result' in task) running.delete(task.id);
    else running.set(task.id, task.name);
  }
  return new Set(running.values());
}
