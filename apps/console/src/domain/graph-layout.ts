/** An assistant's graph as `GET /assistants/{id}/graph` gives it (the SDK's AssistantGraph). */
export interface GraphShape {
  readonly nodes: readonly { readonly id: string | number; readonly name?: string }[];
  readonly edges: readonly {
    readonly source: string;
    readonly target: string;
    readonly conditional?: boolean;
  }[];
}

export interface PlacedNode {
  readonly id: string;
  readonly x: number;
  readonly y: number;
}

export interface GraphLayout {
  readonly nodes: readonly PlacedNode[];
  readonly edges: readonly {
    readonly from: PlacedNode;
    readonly to: PlacedNode;
    readonly conditional: boolean;
  }[];
  readonly width: number;
  readonly height: number;
}

export const NODE_WIDTH = 132;
export const NODE_HEIGHT = 34;
const COLUMN_GAP = 28;
const ROW_GAP = 46;

/**
 * Rows by distance from `__start__` (a node no path reaches goes last), each row centred: enough
 * for the graphs of agents, which are small and mostly flow one way.
 */
export function layoutGraph(graph: GraphShape): GraphLayout {
  const ids = graph.nodes.map((node) => String(node.id));
  const next = new Map<string, string[]>(ids.map((id) => [id, []]));
  for (const edge of graph.edges) next.get(edge.source)?.push(edge.target);
  const rank = new Map<string, number>();
  const start = ids.includes('__start__') ? '__start__' : ids[0];
  if (start !== undefined) rank.set(start, 0);
  const queue = start === undefined ? [] : [start];
  for (let head = 0; head < queue.length; head += 1) {
    const id = queue[head] as string;
    for (const target of next.get(id) ?? []) {
      if (rank.has(target)) continue;
      rank.set(target, (rank.get(id) ?? 0) + 1);
      queue.push(target);
    }
  }
  const deepest = Math.max(0, ...rank.values());
  for (const id of ids) if (!rank.has(id)) rank.set(id, deepest + 1);
  const rows = new Map<number, string[]>();
  for (const id of ids) {
    const row = rank.get(id) ?? 0;
    rows.set(row, [...(rows.get(row) ?? []), id]);
  }
  const widest = Math.max(1, ...[...rows.values()].map((row) => row.length));
  const width = widest * NODE_WIDTH + (widest - 1) * COLUMN_GAP;
  const placed = new Map<string, PlacedNode>();
  for (const [row, members] of rows) {
    const rowWidth = members.length * NODE_WIDTH + (members.length - 1) * COLUMN_GAP;
    members.forEach((id, index) => {
      placed.set(id, {
        id,
        x: (width - rowWidth) / 2 + index * (NODE_WIDTH + COLUMN_GAP),
        y: row * (NODE_HEIGHT + ROW_GAP),
      });
    });
  }
  const edges = graph.edges.flatMap((edge) => {
    const from = placed.get(edge.source);
    const to = placed.get(edge.target);
    return from && to ? [{ from, to, conditional: edge.conditional === true }] : [];
  });
  const rowCount = Math.max(...rows.keys()) + 1;
  return {
    nodes: [...placed.values()],
    edges,
    width,
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
