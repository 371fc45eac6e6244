import type { ReferenceObject, SchemaObject } from '@nestjs/swagger';

/** Any JSON object. */
export const anyObject: SchemaObject = { type: 'object', additionalProperties: true };
export const timestamp: SchemaObject = { type: 'string', format: 'date-time' };
export const uuid: SchemaObject = { type: 'string', format: 'uuid' };

export function nullable(schema: SchemaObject | ReferenceObject): SchemaObject {
  return { anyOf: [schema, { type: 'null' }] };
}

/** An object whose every listed field is always present (null where it has no value). */
export function record(
  properties: Record<string, SchemaObject | ReferenceObject>,
  description: string,
): SchemaObject {
  return { type: 'object', description, properties, required: Object.keys(properties) };
}
