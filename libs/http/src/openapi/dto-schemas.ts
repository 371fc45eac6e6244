import { defaultMetadataStorage } from 'class-transformer/cjs/storage.js';
import { validationMetadatasToSchemas } from 'class-validator-jsonschema';
import type { SchemaObject } from '@nestjs/swagger';

export const SCHEMA_REF_PREFIX = '#/components/schemas/';

/**
 * A property typed as a plain object (a map, free-form JSON) reflects as `Object`, which is no
 * schema of ours: it is any object.
 */
function withoutUnknownRefs(value: unknown, known: ReadonlySet<string>): unknown {
  if (Array.isArray(value)) return value.map((item) => withoutUnknownRefs(item, known));
  if (typeof value !== 'object' || value === null) return value;
  const { $ref, ...rest } = value as Record<string, unknown>;
  const unknownRef = typeof $ref === 'string' && !known.has($ref.slice(SCHEMA_REF_PREFIX.length));
  const kept = unknownRef ? { type: 'object', ...rest } : value;
  return Object.fromEntries(
    Object.entries(kept).map(([key, item]) => [key, withoutUnknownRefs(item, known)]),
  );
}

/**
 * JSON schemas of every class that class-validator validates, read from its decorators: the
 * request DTOs describe themselves, so the document cannot drift from what is enforced.
 */
export function validatedDtoSchemas(): Record<string, SchemaObject> {
  const schemas = validationMetadatasToSchemas({
    refPointerPrefix: SCHEMA_REF_PREFIX,
    classTransformerMetadataStorage: defaultMetadataStorage,
  });
  return withoutUnknownRefs(schemas, new Set(Object.keys(schemas))) as Record<string, SchemaObject>;
}
