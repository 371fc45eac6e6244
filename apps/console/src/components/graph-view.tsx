import { NODE_HEIGHT, NODE_WIDTH, layoutGraph, type GraphShape } from '../domain/graph-layout';

/** An assistant's graph as boxes and arrows; the running nodes stand out. */
export function GraphView({
  graph,
  running,
}: {
  readonly graph: GraphShape;
  readonly running: ReadonlySet<string>;
}) {
  const layout = layoutGraph(graph);
  const margin = 8;
  return (
    <svg
      className="graph"
      role="img"
      aria-label={`Graph: ${layout.nodes.map((node) => node.id).join(', ')}`}
      viewBox={`${-margin} ${-margin} ${layout.width + 2 * margin} ${layout.height + 2 * margin}`}
      width={layout.width + 2 * margin}
    >
      <defs>
        <marker
          id="arrow"
          viewBox="0 0 10 10"
          refX="9"
          refY="5"
          markerWidth="7"
          markerHeight="7"
          orient="auto"
        >
          <path d="M0,0 L10,5 L0,10 z" />
        </marker>
      </defs>
      {layout.edges.map(({ from, to, conditional }) => {
        const down = to.y > from.y;
        const x1 = from.x + NODE_WIDTH / 2;
        const x2 = to.x + NODE_WIDTH / 2;
        const y1 = down ? from.y + NODE_HEIGHT : from.y;
        const y2 = down ? to.y : to.y + NODE_HEIGHT;
        return (
          <line
            key={`${from.id}->${to.id}`}
            className={conditional ? 'graph-edge graph-edge-conditional' : 'graph-edge'}
            x1={x1}
            y1={y1}
            x2={x2}
            y2={y2}
            markerEnd="url(#arrow)"
          />
        );
      })}
      {layout.nodes.map((node) => (
        <g
          key={node.id}
          className="graph-node"
          data-node={node.id}
          data-running={running.has(node.id) ? 'true' : undefined}
          transform={`translate(${node.x} ${node.y})`}
        >
          <rect width={NODE_WIDTH} height={NODE_HEIGHT} rx={8} />
          <text
            x={NODE_WIDTH / 2}
            y={NODE_HEIGHT / 2}
            dominantBaseline="middle"
            textAnchor="middle"
          >
            {node.id}
          </text>
        </g>
      ))}
    </svg>
  );
}
