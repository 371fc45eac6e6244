import { resolve } from 'node:path';
import type { Fail } from './graph-config-error.js';

/** One entry of `graphs`: `"./src/agent.ts:graph"` or `{ "path": "...", "description": "..." }`. */
export interface GraphSpec {
  /** The graph module, absolute. */
  readonly file: string;
  /** The export holding the graph or the function returning it. */
  readonly exportName: string;
  readonly description?: string;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The parsed file as the object a configuration is. */
export function configObjectOf(json: unknown, fail: Fail): Record<string, unknown> {
  if (!isRecord(json)) return fail('the configuration must be a JSON object');
  return json;
}

/** One entry of `graphs`: `"<file>:<export>"`, or an object with `path` and `description`. */
function parseGraphSpec(graphId: string, raw: unknown, dir: string, fail: Fail): GraphSpec {
  if (graphId === '') fail('"graphs" has an empty graph id');
  let spec: unknown = raw;
  let description: string | undefined;
  if (isRecord(raw)) {
    spec = raw['path'];
    const rawDescription = raw['description'];
    if (rawDescription !== undefined && typeof rawDescription !== 'string') {
      fail(`graph "${graphId}": "description" must be a string`);
    }
    description = rawDescription;
  }
  if (typeof spec !== 'string') {
    return fail(
      `graph "${graphId}": the spec must be a string "<file>:<export>" or an object with "path"`,
    );
  }
  const colon = spec.lastIndexOf(':');
  const filePart = colon === -1 ? spec : spec.slice(0, colon);
  const exportName = colon === -1 ? '' : spec.slice(colon + 1);
  if (colon === -1 || exportName === '') {
    fail(
      `graph "${graphId}": spec "${spec}" must name an export, as in "${filePart || './src/graph.ts'}:graph"`,
    );
  }
  if (filePart === '') fail(`graph "${graphId}": spec "${spec}" has no file before ":"`);
  return {
    file: resolve(dir, filePart),
    exportName,
    ...(description === undefined ? {} : { description }),
  };
}

/** `graphs`: graph ids in file order, each with its module and export; at least one. */
export function parseGraphsSection(
  rawGraphs: unknown,
  dir: string,
  fail: Fail,
): Map<string, GraphSpec> {
  if (!isRecord(rawGraphs)) return fail('"graphs" must be an object mapping graph ids to specs');
  const graphs = new Map<string, GraphSpec>();
  for (const [graphId, raw] of Object.entries(rawGraphs)) {
    graphs.set(graphId, parseGraphSpec(graphId, raw, dir, fail));
  }
  if (graphs.size === 0) fail('"graphs" names no graph');
  return graphs;
}
