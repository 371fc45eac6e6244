import ts from 'typescript';
import type { JsonSchema, TypeSchemaWriter } from './type-schema.js';

/** The JSON schemas of a graph, as `GET /assistants/{id}/schemas` gives them. */
export interface GraphSchemas {
  readonly state: JsonSchema | null;
  readonly input: JsonSchema | null;
  readonly output: JsonSchema | null;
  readonly config: JsonSchema | null;
}

/**
 * The compiled graph a graph's type stands for: a factory gives what it returns (awaited), a
 * promise what it resolves to, and a builder (a `StateGraph`) what `compile()` returns.
 */
export function compiledGraphType(checker: ts.TypeChecker, type: ts.Type): ts.Type | undefined {
  let current = checker.getAwaitedType(type) ?? type;
  const [factory] = current.getCallSignatures();
  if (factory && current.getProperties().every((property) => property.getName() !== 'invoke')) {
    current = checker.getAwaitedType(factory.getReturnType()) ?? factory.getReturnType();
  }
  if (!current.getProperty('builder') && current.getProperty('compile')) {
    const compile = current.getProperty('compile');
    const [signature] = compile ? checker.getTypeOfSymbol(compile).getCallSignatures() : [];
    if (signature) current = signature.getReturnType();
  }
  return isCompiledGraphType(current) ? current : undefined;
}

/** A LangGraph compiled graph: it carries its update, input and output types. */
export function isCompiledGraphType(type: ts.Type): boolean {
  return !(type.flags & ts.TypeFlags.Any) && type.getProperty('~InputType') !== undefined;
}

/** LangGraph's `Overwrite` wrapper, which every reducer's update type admits. */
export function isOverwriteWrapper(type: ts.Type): boolean {
  return type.getProperty('__overwrite__') !== undefined;
}

function propertyType(checker: ts.TypeChecker, type: ts.Type, name: string): ts.Type | undefined {
  const property = type.getProperty(name);
  if (!property) return undefined;
  const found = checker.getTypeOfSymbol(property);
  return found.flags & ts.TypeFlags.Any ? undefined : found;
}

/**
 * The schemas a compiled graph's type declares: its state as an update (every key optional),
 * its input, its output, and its config (context) from the graph's config annotation.
 */
export function schemasOfGraphType(
  checker: ts.TypeChecker,
  writer: TypeSchemaWriter,
  graph: ts.Type,
): GraphSchemas {
  const write = (type: ts.Type | undefined): JsonSchema | null =>
    type ? writer.document(type) : null;
  const input = propertyType(checker, graph, '~InputType');
  return {
    state: write(propertyType(checker, graph, '~RunInput') ?? input),
    input: write(input),
    output: write(propertyType(checker, graph, '~OutputType')),
    config: configSchema(checker, writer, graph),
  };
}

/** The graph's config annotation (`builder._configSchema`): each channel's value, optional. */
function configSchema(
  checker: ts.TypeChecker,
  writer: TypeSchemaWriter,
  graph: ts.Type,
): JsonSchema | null {
  const builder = propertyType(checker, graph, 'builder');
  const declared = builder && propertyType(checker, builder, '_configSchema');
  if (!declared) return null;
  const channels = checker.getNonNullableType(declared);
  const properties = checker.getPropertiesOfType(channels).flatMap((channel) => {
    const value = channelValueType(checker, checker.getTypeOfSymbol(channel));
    if (!value) return [];
    const description = ts.displayPartsToString(channel.getDocumentationComment(checker)).trim();
    return [{ name: channel.getName(), type: value, ...(description ? { description } : {}) }];
  });
  return properties.length > 0 ? writer.objectDocument(properties, false) : null;
}

/** A channel's value type; an `Annotation<T>` left uncalled is a function giving the channel. */
function channelValueType(checker: ts.TypeChecker, channel: ts.Type): ts.Type | undefined {
  const direct = propertyType(checker, channel, 'ValueType');
  if (direct) return direct;
  const [make] = channel.getCallSignatures();
  return make ? propertyType(checker, make.getReturnType(), 'ValueType') : undefined;
}
