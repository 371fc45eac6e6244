/** An answer as JSON when it is JSON (`true`, `{"approved": false}`), else as the text typed. */
export function parsedAnswer(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

type Schema = boolean | Readonly<Record<string, unknown>>;

function isSchema(value: unknown): value is Schema {
  return typeof value === 'boolean' || (typeof value === 'object' && value !== null);
}

function matchesPattern(pattern: unknown, text: string): boolean {
  if (typeof pattern !== 'string') return true;
  try {
    return new RegExp(pattern, 'u').test(text);
  } catch {
    return false;
  }
}

/** Whether `value` (the empty string or null) is one the JSON Schema accepts. */
function accepts(schema: Schema, value: '' | null): boolean {
  if (typeof schema === 'boolean') return schema;
  const { type, anyOf, oneOf, allOf, not } = schema;
  if ('const' in schema && schema['const'] !== value) return false;
  if (Array.isArray(schema['enum']) && !schema['enum'].includes(value)) return false;
  const types = typeof type === 'string' ? [type] : Array.isArray(type) ? type : undefined;
  if (types !== undefined && !types.includes(value === null ? 'null' : 'string')) return false;
  if (value === '') {
    const minLength = schema['minLength'];
    if (typeof minLength === 'number' && minLength > 0) return false;
    if (!matchesPattern(schema['pattern'], value)) return false;
  }
  const alternatives = [anyOf, oneOf].filter(Array.isArray).map((list) => list.filter(isSchema));
  if (alternatives.some((list) => !list.some((option) => accepts(option, value)))) return false;
  if (Array.isArray(allOf) && !allOf.filter(isSchema).every((part) => accepts(part, value))) {
    return false;
  }
  return !(isSchema(not) && accepts(not, value));
}

export type AnswerCheck =
  { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly problem: string };

/**
 * What an interrupt's answer box sends for the text typed: the text as JSON or as text. An empty
 * answer only where the interrupt's `response_schema` (JSON Schema, from
 * `interrupt(value, { responseSchema })`) accepts the empty string, or else null; without a
 * schema nothing says an empty answer is wanted, so it is refused.
 */
export function checkAnswer(text: string, responseSchema: unknown): AnswerCheck {
  if (text.trim() !== '') return { ok: true, value: parsedAnswer(text) };
  const schema = isSchema(responseSchema) ? responseSchema : undefined;
  if (schema !== undefined && accepts(schema, '')) return { ok: true, value: '' };
  if (schema !== undefined && accepts(schema, null)) return { ok: true, value: null };
  return {
    ok: false,
    problem:
      schema === undefined
        ? 'Type an answer: the graph does not say an empty one is allowed.'
        : "Type an answer: the graph's schema for it does not allow an empty one.",
  };
}

/** Interrupt `id` as a thread's state holds it in its tasks, with its `response_schema` if any. */
export function interruptIn(
  tasks: readonly { readonly interrupts?: readonly unknown[] }[] | undefined,
  id: string | undefined,
): { readonly response_schema?: unknown } | undefined {
  for (const task of tasks ?? []) {
    for (const interrupt of task.interrupts ?? []) {
      const candidate = interrupt as { id?: unknown; response_schema?: unknown };
      if (candidate.id === id) return candidate;
    }
  }
  return undefined;
}
