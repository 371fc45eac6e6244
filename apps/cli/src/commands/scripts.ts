import { fileURLToPath } from 'node:url';

/** The built entry points of Berth's processes, next to this CLI in dist/. */
export const RUNTIME_SCRIPT = fileURLToPath(
  new URL('../../../agent-runtime/src/main.js', import.meta.url),
);
export const CONTROL_PLANE_SCRIPT = fileURLToPath(
  new URL('../../../control-plane/src/main.js', import.meta.url),
);
export const LISTENER_SCRIPT = fileURLToPath(
  new URL('../../../cluster-listener/src/main.js', import.meta.url),
);
export const EXAMPLE_GRAPH_CONFIG = fileURLToPath(
  new URL('../../../../../examples/agent/langgraph.json', import.meta.url),
);

export { UsageError } from '#libs/config';
