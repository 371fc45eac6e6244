import { describe, expect, it } from '@jest/globals';
import { resolve } from 'node:path';
import { Client } from '@langchain/langgraph-sdk';
import { runtimeSuite } from '../../support/runtime-suite.js';

const SCHEMAS_APP = resolve('test/fixtures/schemas-app/langgraph.json');
const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';
const BASE_MESSAGE = 'BaseMessage<MessageStructure<MessageToolSet>,MessageType>';

type Schema = {
  type?: unknown;
  properties?: Record<string, Schema>;
  required?: string[];
  definitions?: Record<string, Schema>;
};
type SubgraphSchemas = Record<string, { state: Schema | null; config: Schema | null }>;

describe("a graph's schemas, from its zod or StateSchema objects and from its source's types", () => {
  const suite = runtimeSuite(
    'runtime_graph_schemas',
    { maxRetries: 0 },
    { graphConfig: SCHEMAS_APP },
  );
  const client = (): Client => suite.client;

  const subgraphsOf = async (graphId: string, recurse?: boolean): Promise<SubgraphSchemas> =>
    (await client().assistants.getSubgraphs(graphId, { recurse })) as unknown as SubgraphSchemas;

  it('types an Annotation state, and its config annotation as both config and context', async () => {
    const assistant = await client().assistants.create({ graphId: 'annotated' });
    const schemas = await client().assistants.getSchemas(assistant.assistant_id);
    const context = {
      type: 'object',
      properties: {
        language: { type: 'string', enum: ['en', 'fr'] },
        escalate: { type: 'boolean' },
      },
      $schema: DRAFT_07,
    };
    expect(schemas.config_schema).toEqual(context);
    expect(schemas.context_schema).toEqual(context);
    expect(schemas.state_schema).toMatchObject({
      type: 'object',
      properties: {
        messages: { type: 'array', items: { $ref: `#/definitions/${BASE_MESSAGE}` } },
        ticket: { anyOf: [{ type: 'null' }, { $ref: '#/definitions/Ticket' }] },
        stage: { type: 'string', enum: ['answer', 'closed', 'triage'] },
        attempts: { type: 'number' },
      },
      definitions: {
        [BASE_MESSAGE]: {
          description: expect.stringContaining('Base class for all types of messages'),
          oneOf: [{ $ref: '#/definitions/RemoveMessage' }],
        },
        Ticket: {
          description: 'Where a support ticket stands.',
          type: 'object',
          properties: {
            id: { type: 'number', description: "The ticket's number at the help desk." },
            priority: { type: 'string', enum: ['high', 'low'] },
            tags: { type: 'array', items: { type: 'string' } },
          },
          required: ['id', 'priority'],
        },
      },
      $schema: DRAFT_07,
    });
    expect((schemas.state_schema as Schema).required).toBeUndefined();
    expect(schemas.output_schema).toMatchObject({
      required: ['messages', 'ticket', 'stage', 'attempts'],
    });
  });

  it('keeps the withLangGraph and registry metadata of a zod state', async () => {
    const checklist = await client().assistants.getSchemas('registry');
    expect(checklist.state_schema).toMatchObject({
      type: 'object',
      properties: {
        steps: { langgraph_type: 'messages' },
        done: { type: 'number' },
        phase: { type: 'string', enum: ['draft', 'review', 'final'] },
      },
    });
    const notes = await client().assistants.getSchemas('notes');
    expect(notes.state_schema).toMatchObject({
      properties: { notes: { langgraph_type: 'messages' }, author: { type: 'string' } },
    });
  });

  it("gives a StateSchema's own schemas, with MessagesValue's langgraph_type", async () => {
    const schemas = await client().assistants.getSchemas('state_schema');
    expect(schemas.state_schema).toMatchObject({
      type: 'object',
      properties: {
        messages: { langgraph_type: 'messages' },
        turns: { type: 'number' },
      },
    });
  });

  it('converts a plain zod state as it is, with no LangGraph metadata', async () => {
    const schemas = await client().assistants.getSchemas('plain_zod');
    expect(schemas.state_schema).toMatchObject({
      type: 'object',
      properties: {
        fruits: { type: 'array', items: { type: 'string' } },
        count: { type: 'number' },
        label: { type: 'string' },
      },
    });
    expect(schemas.state_schema?.properties).not.toHaveProperty('fruits.langgraph_type');
  });

  it("types a factory's graph from what the factory returns", async () => {
    const schemas = await client().assistants.getSchemas('factory');
    expect(schemas.state_schema).toMatchObject({
      properties: { total: { type: 'number' }, unit: { type: ['string', 'null'] } },
    });
    expect(schemas.config_schema).toBeNull();
  });

  it("falls back to the state's keys for a graph exported without its type", async () => {
    const schemas = await client().assistants.getSchemas('untyped');
    expect(schemas.state_schema).toEqual({ type: 'object', properties: { note: {}, seen: {} } });
    expect(schemas.input_schema).toEqual(schemas.state_schema);
    expect(schemas.config_schema).toBeNull();
  });

  it('gives each subgraph its state, input, output and config, typed from the source', async () => {
    expect(Object.keys(await subgraphsOf('nested'))).toEqual(['branch']);
    const subgraphs = await subgraphsOf('nested', true);
    expect(Object.keys(subgraphs)).toEqual(['branch', 'branch|fruit']);
    expect(subgraphs).toMatchObject({
      branch: {
        state: {
          type: 'object',
          properties: {
            lines: { type: 'array', items: { type: 'string' } },
            season: { type: 'string', enum: ['autumn', 'spring'] },
          },
        },
        input: { properties: { season: { enum: ['autumn', 'spring'] } } },
        output: { required: ['lines', 'season'] },
        config: null,
      },
      'branch|fruit': {
        state: { properties: { flavour: { type: 'string', enum: ['sour', 'sweet'] } } },
      },
    });
    const under = (await client().assistants.getSubgraphs('nested', {
      namespace: 'branch',
    })) as unknown as SubgraphSchemas;
    expect(Object.keys(under)).toEqual(['branch']);
    expect(under['branch']?.state).toEqual(subgraphs['branch']?.state);
  });
});
