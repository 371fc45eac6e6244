import type { SchemaObject } from '@nestjs/swagger';

const head: SchemaObject = {
  type: 'string',
  pattern: '^[0-9]+:[0-9a-f]{64}$',
  description: 'A chain head: position:sha256',
};
const count: SchemaObject = { type: 'integer', minimum: 0 };

/** `GET /v2/audit/verify` (control plane) and `GET /audit/verify` (runtime): docs/audit.md. */
export const AUDIT_VERIFICATION_SCHEMA: SchemaObject = {
  type: 'object',
  description:
    'The event log checked against its hash chain: verified up to a head, or the first break.',
  required: ['verified', 'events', 'summary'],
  properties: {
    verified: { type: 'boolean' },
    events: count,
    deleted: count,
    head,
    pending: count,
    break: {
      type: 'object',
      required: ['kind', 'position', 'detail'],
      properties: {
        kind: {
          type: 'string',
          enum: ['edited', 'missing', 'reordered', 'inserted', 'chain_altered', 'head_mismatch'],
        },
        position: count,
        detail: { type: 'string' },
        event_id: { type: 'string', format: 'uuid' },
      },
    },
    published_head: head,
    summary: { type: 'string' },
  },
};

/** `GET /v2/audit/export`: a deployment's events in a period, with their chain positions. */
export const AUDIT_EXPORT_SCHEMA: SchemaObject = {
  type: 'object',
  description: "A deployment's events recorded in the period, in order, with their chain links.",
  required: ['resources'],
  properties: {
    resources: {
      type: 'array',
      items: {
        type: 'object',
        required: [
          'position',
          'hash',
          'event_id',
          'stream_id',
          'stream_position',
          'type',
          'data',
          'metadata',
          'recorded_at',
        ],
        properties: {
          position: { type: ['integer', 'null'], minimum: 1 },
          hash: { type: ['string', 'null'] },
          event_id: { type: 'string', format: 'uuid' },
          stream_id: { type: 'string' },
          stream_position: count,
          type: { type: 'string' },
          data: { type: 'object', additionalProperties: true },
          metadata: { type: 'object', additionalProperties: true },
          recorded_at: { type: 'string', format: 'date-time' },
        },
      },
    },
  },
};
