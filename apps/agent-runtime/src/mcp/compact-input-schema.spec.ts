import { describe, expect, it } from '@jest/globals';
import { COMPACT_MESSAGE_SCHEMA, compactInputSchema } from './compact-input-schema.js';

const MESSAGE = '#/definitions/BaseMessage<MessageStructure<MessageToolSet>,MessageType>';

/** The shape a graph's Annotation state of messages is extracted to, in miniature. */
const annotated = {
  type: 'object',
  properties: {
    messages: { type: 'array', items: { $ref: MESSAGE } },
    ticket: { $ref: '#/definitions/Ticket' },
  },
  required: ['ticket'],
  definitions: {
    [MESSAGE.slice('#/definitions/'.length)]: { $ref: '#/definitions/ContentBlock' },
    ContentBlock: { type: 'object' },
    Ticket: { type: 'object', properties: { owner: { $ref: '#/definitions/Owner' } } },
    Owner: { type: 'string' },
  },
  $schema: 'http://json-schema.org/draft-07/schema#',
};

describe("a graph's input schema, compacted for a model", () => {
  it('describes a channel of messages as {role, content} items and drops the classes', () => {
    expect(compactInputSchema(annotated)).toEqual({
      type: 'object',
      properties: {
        messages: {
          type: 'array',
          description: 'Messages to add to the thread',
          items: COMPACT_MESSAGE_SCHEMA,
        },
        ticket: { $ref: '#/definitions/Ticket' },
      },
      required: ['ticket'],
      // Definitions still referenced stay, through each other.
      definitions: {
        Ticket: annotated.definitions.Ticket,
        Owner: { type: 'string' },
      },
      $schema: 'http://json-schema.org/draft-07/schema#',
    });
  });

  it('knows a zod channel marked as messages, and keeps its description', () => {
    const zod = {
      type: 'object',
      properties: {
        messages: { langgraph_type: 'messages', description: 'A list of chat messages' },
        turns: { type: 'number' },
      },
    };
    expect(compactInputSchema(zod)).toEqual({
      type: 'object',
      properties: {
        messages: {
          type: 'array',
          description: 'A list of chat messages',
          items: COMPACT_MESSAGE_SCHEMA,
        },
        turns: { type: 'number' },
      },
    });
  });

  it('leaves a schema without messages as it is', () => {
    const plain = {
      type: 'object',
      properties: { topic: { type: 'string' }, item: { $ref: '#/$defs/Item' } },
      $defs: { Item: { type: 'number' } },
    };
    expect(compactInputSchema(plain)).toEqual(plain);
  });
});
