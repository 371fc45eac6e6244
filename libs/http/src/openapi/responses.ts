import { applyDecorators } from '@nestjs/common';
import { ApiResponse, type ReferenceObject, type SchemaObject } from '@nestjs/swagger';
import { SCHEMA_REF_PREFIX } from './dto-schemas.js';

export type ResponseSchema = SchemaObject | ReferenceObject;

/** A reference to a component schema by name. */
export function schemaRef(name: string): ReferenceObject {
  return { $ref: `${SCHEMA_REF_PREFIX}${name}` };
}

/** A JSON array of the named component schema. */
export function listOf(name: string): SchemaObject {
  return { type: 'array', items: schemaRef(name) };
}

function asSchema(schema: ResponseSchema | string): ResponseSchema {
  return typeof schema === 'string' ? schemaRef(schema) : schema;
}

/** The route answers JSON of this schema (a component's name, or a schema). */
export function Returns(schema: ResponseSchema | string, status = 200): MethodDecorator {
  return ApiResponse({
    status,
    description: 'Success',
    content: { 'application/json': { schema: asSchema(schema) } },
  });
}

/** The health probe: 200 `Ok`, or 503 `NotOk` naming the database or the read model that fails. */
export function ReturnsHealth(): MethodDecorator {
  return applyDecorators(
    Returns('Ok'),
    ApiResponse({
      status: 503,
      description:
        'The database cannot be reached, or a read model is stuck on an event it cannot apply',
      content: { 'application/json': { schema: schemaRef('NotOk') } },
    }),
  );
}

/** The route answers 204 with no body. */
export function ReturnsNothing(): MethodDecorator {
  return ApiResponse({ status: 204, description: 'Done; no body' });
}

/** The route answers a Server-Sent Events stream; `Last-Event-ID` resumes it. */
export function StreamsEvents(): MethodDecorator {
  return applyDecorators(
    ApiResponse({
      status: 200,
      description: 'A stream of Server-Sent Events (`event:`, `data:` JSON, `id:` for resuming)',
      content: { 'text/event-stream': { schema: { type: 'string' } } },
    }),
  );
}

/** The route answers JSON, or with `follow=true` a Server-Sent Events stream of the same items. */
export function ReturnsOrStreams(schema: ResponseSchema | string): MethodDecorator {
  return ApiResponse({
    status: 200,
    description: 'JSON; with follow=true, a stream of Server-Sent Events instead',
    content: {
      'application/json': { schema: asSchema(schema) },
      'text/event-stream': { schema: { type: 'string' } },
    },
  });
}

/** The route answers with a redirect. */
export function Redirects(status = 302): MethodDecorator {
  return ApiResponse({ status, description: 'Redirect to the resource (Location header)' });
}
