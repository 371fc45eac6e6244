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
      {layout.edges.map(({ from, to, conditional, points }) => (
        <polyline
          key={`${from.id}->${to.id}`}
          className={conditional ? 'graph-edge graph-edge-conditional' : 'graph-edge'}
          points={points.map((point) => `${point.x},${point.y}`).join(' ')}
          markerEnd="url(#arrow)"
        />
      ))}
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
