import type { GraphSchemas } from './source-schemas/graph-types.js';

export type { GraphSchemas } from './source-schemas/graph-types.js';

type JsonSchema = Record<string, unknown>;
type SchemaFunction = (graph: unknown) => unknown;

/**
 * What reads a graph's runtime schema objects, from the application's own copies of
 * `@langchain/langgraph/zod/schema` (its registry holds the `withLangGraph` metadata the graphs
 * registered) and of `@langchain/core` (to convert a zod schema no registry knows).
 */
export interface SchemaReaders {
  readonly getUpdateTypeSchema?: SchemaFunction;
  readonly getInputTypeSchema?: SchemaFunction;
  readonly getOutputTypeSchema?: SchemaFunction;
  readonly getConfigTypeSchema?: SchemaFunction;
  readonly toJsonSchema?: (schema: unknown) => unknown;
  readonly isZodSchema?: (value: unknown) => boolean;
}

/** The runtime definitions a `StateGraph` keeps of its state, input, output and config. */
interface RuntimeDefinitions {
  _schemaRuntimeDefinition?: unknown;
  _inputRuntimeDefinition?: unknown;
  _outputRuntimeDefinition?: unknown;
  _configRuntimeSchema?: unknown;
}

/** A StateSchema (or anything that gives its JSON schemas as one does). */
interface StateSchemaLike {
  getJsonSchema(): unknown;
  getInputJsonSchema(): unknown;
}

/** LangGraph's marker for an input that is the state, every key optional. */
const PARTIAL_STATE = Symbol.for('langgraph.state.partial');

const NO_SCHEMAS: GraphSchemas = { state: null, input: null, output: null, config: null };

function asSchema(value: unknown): JsonSchema | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as JsonSchema)
    : null;
}

function attempt(read: () => unknown): JsonSchema | null {
  try {
    return asSchema(read());
  } catch {
    return null;
  }
}

function definitionsOf(graph: unknown): RuntimeDefinitions | undefined {
  const builder = (graph as { builder?: unknown } | null)?.builder;
  return typeof builder === 'object' && builder !== null ? builder : undefined;
}

function isStateSchemaLike(value: unknown): value is StateSchemaLike {
  return (
    typeof (value as Partial<StateSchemaLike> | null)?.getJsonSchema === 'function' &&
    typeof (value as Partial<StateSchemaLike> | null)?.getInputJsonSchema === 'function'
  );
}

/** A state declared with `StateSchema`: the schemas it gives itself (with `jsonSchemaExtra`). */
function stateSchemaSchemas(builder: RuntimeDefinitions): GraphSchemas | undefined {
  const { _schemaRuntimeDefinition: state, _outputRuntimeDefinition: output } = builder;
  const input =
    builder._inputRuntimeDefinition === PARTIAL_STATE ? state : builder._inputRuntimeDefinition;
  if (![state, input, output].some(isStateSchemaLike)) return undefined;
  return {
    state: isStateSchemaLike(state) ? attempt(() => state.getJsonSchema()) : null,
    input: isStateSchemaLike(input) ? attempt(() => input.getInputJsonSchema()) : null,
    output: isStateSchemaLike(output) ? attempt(() => output.getJsonSchema()) : null,
    config: null,
  };
}

/** A zod state, through LangGraph's registry: `withLangGraph`/`registry` metadata is kept. */
function registrySchemas(graph: unknown, readers: SchemaReaders): GraphSchemas {
  const read = (reader: SchemaFunction | undefined) =>
    reader ? attempt(() => reader(graph)) : null;
  return {
    state: read(readers.getUpdateTypeSchema),
    input: read(readers.getInputTypeSchema),
    output: read(readers.getOutputTypeSchema),
    config: read(readers.getConfigTypeSchema),
  };
}

/** A zod state converted as it is, for a LangGraph whose registry gave nothing. */
function plainZodSchemas(builder: RuntimeDefinitions, readers: SchemaReaders): GraphSchemas {
  const { toJsonSchema, isZodSchema } = readers;
  const convert = (definition: unknown): JsonSchema | null =>
    toJsonSchema && isZodSchema?.(definition) ? attempt(() => toJsonSchema(definition)) : null;
  const state = convert(builder._schemaRuntimeDefinition);
  const input = convert(builder._inputRuntimeDefinition) ?? (state && withoutRequired(state));
  return {
    state,
    input,
    output: convert(builder._outputRuntimeDefinition),
    config: convert(builder._configRuntimeSchema),
  };
}

function withoutRequired(schema: JsonSchema): JsonSchema {
  return Object.fromEntries(Object.entries(schema).filter(([key]) => key !== 'required'));
}

const hasAny = (schemas: GraphSchemas): boolean =>
  Object.values(schemas).some((schema) => schema !== null);

/**
 * The schemas a compiled graph's runtime objects declare: a StateSchema's own, else a zod
 * state's through the application's LangGraph registry, else the zod state converted as it is.
 * A state declared with `Annotation` carries no types at run time: all null.
 */
export function runtimeSchemas(graph: unknown, readers: SchemaReaders): GraphSchemas {
  const builder = definitionsOf(graph);
  if (!builder) return NO_SCHEMAS;
  const fromStateSchema = stateSchemaSchemas(builder);
  if (fromStateSchema) return fromStateSchema;
  const fromRegistry = registrySchemas(graph, readers);
  if (hasAny(fromRegistry)) return fromRegistry;
  return plainZodSchemas(builder, readers);
}

/** The graph's own state keys, for a graph whose state types are known nowhere. */
export function channelKeySchema(graph: unknown): JsonSchema | null {
  const channels = (graph as { builder?: { channels?: unknown } } | null)?.builder?.channels;
  if (typeof channels !== 'object' || channels === null) return null;
  const keys = Object.keys(channels).filter((key) => !key.startsWith('__') && !key.includes(':'));
  if (keys.length === 0) return null;
  return {
    type: 'object',
    properties: Object.fromEntries(keys.map((key) => [key, {}])),
  };
}

/**
 * A graph's schemas, each from the best source that has it: its runtime objects (zod,
 * StateSchema), then its source's types (`source`), then the object of its state keys for the
 * state, input and output.
 */
export function combinedSchemas(
  graph: unknown,
  runtime: GraphSchemas,
  source: GraphSchemas | undefined,
): GraphSchemas {
  const keys = channelKeySchema(graph);
  return {
    state: runtime.state ?? source?.state ?? keys,
    input: runtime.input ?? source?.input ?? keys,
    output: runtime.output ?? source?.output ?? keys,
    config: runtime.config ?? source?.config ?? null,
  };
}
