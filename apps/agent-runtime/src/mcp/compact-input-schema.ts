type JsonSchema = Record<string, unknown>;

const isRecord = (value: unknown): value is JsonSchema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A message as a model writes one: a role (or LangChain's type) and its content. */
export const COMPACT_MESSAGE_SCHEMA = {
  type: 'object',
  properties: {
    role: { type: 'string', description: 'user, assistant, system or tool' },
    type: { type: 'string', description: 'In place of role: human, ai, system or tool' },
    content: {
      anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'object' } }],
      description: 'The text, or a list of content blocks such as {"type": "text", "text": ...}',
    },
  },
  required: ['content'],
} as const;

const compactMessages = (description: unknown): JsonSchema => ({
  type: 'array',
  description: typeof description === 'string' ? description : 'Messages to add to the thread',
  items: COMPACT_MESSAGE_SCHEMA,
});

/** The definitions a schema's extraction gives LangChain's message classes. */
const MESSAGE_CLASS_REF = /^#\/(definitions|\$defs)\/BaseMessage/;

const withoutKey = (schema: JsonSchema, key: string): JsonSchema =>
  Object.fromEntries(Object.entries(schema).filter(([name]) => name !== key));

/** Every `$ref` below `schema`. */
function refsIn(schema: unknown, found: Set<string> = new Set()): Set<string> {
  if (Array.isArray(schema)) {
    for (const item of schema) refsIn(item, found);
  } else if (isRecord(schema)) {
    for (const [key, value] of Object.entries(schema)) {
      if (key === '$ref' && typeof value === 'string') found.add(value);
      else refsIn(value, found);
    }
  }
  return found;
}

/** A state channel of messages: marked so by a zod registry, or made of LangChain's classes. */
function isMessageList(property: unknown): boolean {
  if (!isRecord(property)) return false;
  if (property.langgraph_type === 'messages') return true;
  return [...refsIn(property)].some((ref) => MESSAGE_CLASS_REF.test(ref));
}

/** The definitions still referenced from `schema` (outside them), followed through each other. */
function referencedDefinitions(
  schema: JsonSchema,
  key: 'definitions' | '$defs',
): JsonSchema | undefined {
  const definitions = schema[key];
  if (!isRecord(definitions)) return undefined;
  const outside = withoutKey(schema, key);
  const prefix = `#/${key}/`;
  const kept: JsonSchema = {};
  const pending = [...refsIn(outside)];
  for (let ref = pending.pop(); ref !== undefined; ref = pending.pop()) {
    const name = ref.startsWith(prefix) ? decodeURIComponent(ref.slice(prefix.length)) : undefined;
    if (name === undefined || name in kept || !(name in definitions)) continue;
    kept[name] = definitions[name];
    pending.push(...refsIn(definitions[name]));
  }
  return Object.keys(kept).length > 0 ? kept : undefined;
}

/**
 * A graph's input schema as a model should read it: each channel of messages described as
 * `{role, content}` items in place of the serialized LangChain classes (tens of KB), and the
 * definitions nothing refers to any more dropped. Other channels are left as they are.
 */
export function compactInputSchema(schema: JsonSchema): JsonSchema {
  const properties = schema.properties;
  if (!isRecord(properties)) return schema;
  let compacted: JsonSchema = {
    ...schema,
    properties: Object.fromEntries(
      Object.entries(properties).map(([name, property]) => [
        name,
        isMessageList(property) ? compactMessages((property as JsonSchema).description) : property,
      ]),
    ),
  };
  for (const key of ['definitions', '$defs'] as const) {
    if (!(key in compacted)) continue;
    const kept = referencedDefinitions(compacted, key);
    compacted = kept ? { ...compacted, [key]: kept } : withoutKey(compacted, key);
  }
  return compacted;
}
