import { describe, expect, it } from '@jest/globals';
import { runtimeSuite } from '../../support/runtime-suite.js';

type Drawing = { nodes: { id: string }[]; edges: { source: string; target: string }[] };

const nodeIds = (drawing: unknown): string[] =>
  (drawing as Drawing).nodes.map((node) => node.id).sort();

describe("an assistant's graph: drawing, schemas and subgraphs, through the official SDK", () => {
  const suite = runtimeSuite('runtime_assistant_graphs');

  it('draws the graph of an assistant named by its graph id, with its edges', async () => {
    const drawing = (await suite.client.assistants.getGraph('subgraph')) as unknown as Drawing;
    expect(nodeIds(drawing)).toEqual(['__end__', '__start__', 'plan', 'report', 'research']);
    expect(drawing.edges).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ source: 'plan', target: 'research' }),
        expect.objectContaining({ source: 'research', target: 'report' }),
      ]),
    );
  });

  it('draws subgraphs inside with xray, by a created assistant too', async () => {
    const assistant = await suite.client.assistants.create({ graphId: 'subgraph' });
    const drawing = await suite.client.assistants.getGraph(assistant.assistant_id, { xray: true });
    expect(nodeIds(drawing)).toEqual(
      expect.arrayContaining(['research:search', 'research:summarize', 'plan', 'report']),
    );
    const shallow = await suite.client.assistants.getGraph(assistant.assistant_id, { xray: 0 });
    expect(nodeIds(shallow)).not.toContain('research:search');
  });

  it('types the schemas of a graph whose state is an Annotation from its source', async () => {
    const schemas = await suite.client.assistants.getSchemas('subgraph');
    expect(schemas.graph_id).toBe('subgraph');
    const properties = {
      topic: { type: 'string' },
      notes: { type: 'array', items: { type: 'string' } },
      answer: { type: 'string' },
    };
    expect(schemas.state_schema).toEqual({
      type: 'object',
      properties,
      $schema: 'http://json-schema.org/draft-07/schema#',
    });
    expect(schemas.input_schema).toEqual(schemas.state_schema);
    expect(schemas.output_schema).toMatchObject({
      properties,
      required: ['topic', 'notes', 'answer'],
    });
  });

  it('lists the subgraphs by namespace, each with its schemas', async () => {
    const subgraphs = (await suite.client.assistants.getSubgraphs('subgraph')) as unknown as Record<
      string,
      { state: unknown }
    >;
    expect(Object.keys(subgraphs)).toEqual(['research']);
    expect(subgraphs['research']?.state).toMatchObject({
      properties: { topic: { type: 'string' }, notes: { type: 'array' }, answer: {} },
    });
    expect(
      Object.keys(
        await suite.client.assistants.getSubgraphs('subgraph', { namespace: 'research' }),
      ),
    ).toEqual(['research']);
    expect(await suite.client.assistants.getSubgraphs('agent', { recurse: true })).toEqual({});
  });

  it('answers 404 for an unknown assistant and 422 for a bad xray', async () => {
    const call = (path: string): Promise<Response> =>
      fetch(`${suite.runtime.url}${path}`, { headers: { 'x-api-key': suite.runtime.apiKey } });
    const unknown = await call('/assistants/7b6b1a5e-0000-4000-8000-000000000000/graph');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ detail: expect.any(String) });
    const bad = await call('/assistants/agent/graph?xray=maybe');
    expect(bad.status).toBe(422);
    expect(await call('/assistants/agent/subgraphs?recurse=sometimes')).toHaveProperty(
      'status',
      422,
    );
  });
});
