import type { JsonObject } from '#libs/event-store';

export interface AgentNode {
  readonly namespace: readonly string[];
  readonly status: string;
  readonly graph_name: string;
}

/** The protocol's `AgentTreeNode`: the root graph, each subgraph under the one that ran it. */
export function agentTree(nodes: readonly AgentNode[]): JsonObject {
  const build = (node: AgentNode): JsonObject => {
    const children = nodes
      .filter(
        (child) =>
          child.namespace.length === node.namespace.length + 1 &&
          node.namespace.every((part, index) => child.namespace[index] === part),
      )
      .sort((a, b) => a.namespace.join('|').localeCompare(b.namespace.join('|')))
      .map(build);
    return {
      namespace: [...node.namespace],
      status: node.status,
      graph_name: node.graph_name,
      ...(children.length > 0 ? { children } : {}),
    };
  };
  const root = nodes.find((node) => node.namespace.length === 0);
  return root ? build(root) : { namespace: [], status: 'started', graph_name: 'root' };
}
