import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

type JsonSchema = Record<string, unknown>;

/** The JSON schemas of a graph, as `GET /assistants/{id}/schemas` gives them. */
export interface GraphSchemas {
  readonly state: JsonSchema | null;
  readonly input: JsonSchema | null;
  readonly output: JsonSchema | null;
  readonly config: JsonSchema | null;
}

type SchemaFunction = (graph: unknown) => unknown;

/** `@langchain/langgraph/zod/schema` of the application's own LangGraph copy. */
interface SchemaHelpers {
  getUpdateTypeSchema?: SchemaFunction;
  getInputTypeSchema?: SchemaFunction;
  getOutputTypeSchema?: SchemaFunction;
  getConfigTypeSchema?: SchemaFunction;
}

const SCHEMA_EXPORT = './zod/schema';

/**
 * Loads the schema helpers of the LangGraph package at `packageJson`, by its ESM export: the
 * registry of zod metadata lives in the module instance the application's graphs imported.
 */
export async function loadSchemaHelpers(packageJson: string): Promise<SchemaHelpers | undefined> {
  try {
    const manifest = JSON.parse(await readFile(packageJson, 'utf8')) as {
      exports?: Record<string, { import?: string | { default?: string } }>;
    };
    const entry = manifest.exports?.[SCHEMA_EXPORT]?.import;
    const file = typeof entry === 'string' ? entry : entry?.default;
    if (!file) return undefined;
    return (await import(pathToFileURL(join(dirname(packageJson), file)).href)) as SchemaHelpers;
  } catch {
    return undefined;
  }
}

function asSchema(value: unknown): JsonSchema | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as JsonSchema)
    : null;
}

function attempt(helper: SchemaFunction | undefined, graph: unknown): JsonSchema | null {
  try {
    return asSchema(helper?.(graph));
  } catch {
    return null;
  }
}

/** The graph's own state keys, for graphs whose state carries no schema (Annotation). */
function channelSchema(graph: unknown): JsonSchema | null {
  const channels = (graph as { builder?: { channels?: unknown } }).builder?.channels;
  if (typeof channels !== 'object' || channels === null) return null;
  const keys = Object.keys(channels).filter((key) => !key.startsWith('__') && !key.includes(':'));
  if (keys.length === 0) return null;
  return {
    type: 'object',
    properties: Object.fromEntries(keys.map((key) => [key, {}])),
  };
}

/**
 * The schemas a compiled graph declares: from its zod or StateSchema state, through the
 * application's LangGraph; for a state declared with Annotation, the object of its keys.
 */
export function graphSchemas(graph: unknown, helpers: SchemaHelpers | undefined): GraphSchemas {
  const declared = {
    state: attempt(helpers?.getUpdateTypeSchema, graph),
    input: attempt(helpers?.getInputTypeSchema, graph),
    output: attempt(helpers?.getOutputTypeSchema, graph),
    config: attempt(helpers?.getConfigTypeSchema, graph),
  };
  if (Object.values(declared).some((schema) => schema !== null)) return declared;
  const keys = channelSchema(graph);
  return { state: keys, input: keys, output: keys, config: null };
}
