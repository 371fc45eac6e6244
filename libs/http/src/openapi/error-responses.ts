import type { OpenAPIObject, ResponseObject, SchemaObject } from '@nestjs/swagger';
import { schemaRef } from './responses.js';

/** Schemas both servers answer with: their errors, and the health probe. */
export const COMMON_SCHEMAS: Record<string, SchemaObject> = {
  Ok: {
    type: 'object',
    description: 'The process answers.',
    properties: { ok: { type: 'boolean', enum: [true] } },
    required: ['ok'],
  },
  NotOk: {
    type: 'object',
    description:
      'The database cannot be reached (`database`: why, since when), or a read model is stuck ' +
      'on an event it cannot apply (`failing`: which one, which event, why): 503.',
    properties: {
      ok: { type: 'boolean', enum: [false] },
      detail: { type: 'string' },
      failing: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            projection: { type: 'string' },
            event: {
              type: ['object', 'null'],
              properties: {
                stream: { type: 'string' },
                stream_position: { type: 'integer' },
                type: { type: 'string' },
                log_position: { type: 'string' },
              },
            },
            after: { type: 'string' },
            error: { type: 'string' },
            since: { type: 'string', format: 'date-time' },
            attempts: { type: 'integer' },
          },
          required: ['projection', 'after', 'error', 'since', 'attempts'],
        },
      },
      database: {
        type: 'object',
        description: 'Present while the database cannot be reached.',
        properties: {
          ok: { type: 'boolean', enum: [false] },
          error: { type: 'string' },
          since: { type: 'string', format: 'date-time' },
          failures: { type: 'integer' },
        },
        required: ['ok', 'error', 'since', 'failures'],
      },
    },
    required: ['ok', 'detail', 'failing'],
  },
  ErrorDetail: {
    type: 'object',
    description: 'Every error answer: what went wrong, in words.',
    properties: { detail: { type: 'string' } },
    required: ['detail'],
  },
  HTTPValidationError: {
    type: 'object',
    description: 'A request that breaks the schema: one entry per problem.',
    properties: {
      detail: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            loc: { type: 'array', items: { type: ['string', 'integer'] } },
            msg: { type: 'string' },
            type: { type: 'string' },
          },
          required: ['loc', 'msg', 'type'],
        },
      },
    },
    required: ['detail'],
  },
};

const ERROR_RESPONSES: Record<string, ResponseObject> = {
  '4XX': {
    description: 'Refused: unknown id (404), missing or wrong key (401), conflict (409), …',
    content: { 'application/json': { schema: schemaRef('ErrorDetail') } },
  },
  '422': {
    description: 'The request breaks the schema',
    content: { 'application/json': { schema: schemaRef('HTTPValidationError') } },
  },
};

const OPERATION_METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** Every operation can be refused: each one lists the error shapes a client must handle. */
export function addErrorResponses(
  document: OpenAPIObject,
  publicPaths: ReadonlySet<string>,
  openPaths: ReadonlySet<string> = new Set(),
): void {
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of OPERATION_METHODS) {
      const operation = item[method];
      if (!operation) continue;
      operation.responses = { ...operation.responses, ...ERROR_RESPONSES };
      if (publicPaths.has(path)) operation.security = [];
      // Either no credentials or the key: `{}` is the requirement of none.
      if (openPaths.has(path)) operation.security = [{}, ...(document.security ?? [])];
    }
  }
}
