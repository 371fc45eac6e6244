import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { everyMethodCovered } from '../../../support/sdk-coverage.js';
import { runtimeSuite } from '../../../support/runtime-suite.js';

/** Every method of the official SDK's `client.assistants`, each with its options. */
describe('client.assistants: every method of the official SDK', () => {
  const suite = runtimeSuite('sdk_assistants', { maxRetries: 0 });
  const assistants = everyMethodCovered(() => suite.client.assistants);
  const tag = randomUUID();

  it('create, get, update, getVersions, setLatest, count, search and delete one assistant', async () => {
    const created = await assistants().create({
      graphId: 'agent',
      name: `sdk-${tag}`,
      description: 'made by the SDK coverage test',
      context: { model_name: 'v1-model' },
      metadata: { tag, step: 1 },
      config: { tags: ['sdk'] },
    });
    expect(created).toMatchObject({ graph_id: 'agent', version: 1, name: `sdk-${tag}` });
    expect(await assistants().get(created.assistant_id)).toMatchObject({
      description: 'made by the SDK coverage test',
      context: { model_name: 'v1-model' },
    });
    const again = await assistants().create({
      graphId: 'agent',
      assistantId: created.assistant_id,
      ifExists: 'do_nothing',
    });
    expect(again.version).toBe(1);

    const updated = await assistants().update(created.assistant_id, {
      context: { model_name: 'v2-model' },
      metadata: { tag, step: 2 },
      name: `sdk-${tag}-v2`,
    });
    expect(updated.version).toBe(2);
    const versions = await assistants().getVersions(created.assistant_id, {
      metadata: { tag },
      limit: 10,
      offset: 0,
    });
    expect(versions.map((version) => version.version)).toEqual([2, 1]);
    const back = await assistants().setLatest(created.assistant_id, 1);
    expect(back).toMatchObject({ version: 1, name: `sdk-${tag}` });

    expect(await assistants().count({ metadata: { tag }, graphId: 'agent' })).toBe(1);
    const found = await assistants().search({
      metadata: { tag },
      graphId: 'agent',
      limit: 5,
      offset: 0,
      sortBy: 'created_at',
      sortOrder: 'desc',
      select: ['assistant_id', 'name'],
    });
    expect(found).toEqual([{ assistant_id: created.assistant_id, name: `sdk-${tag}` }]);

    await assistants().delete(created.assistant_id, { deleteThreads: true });
    await expect(assistants().get(created.assistant_id)).rejects.toThrow(/404/);
  });

  it('getGraph, getSchemas and getSubgraphs describe the graph behind an assistant', async () => {
    const drawing = await assistants().getGraph('subgraph', { xray: 1 });
    expect(drawing.nodes.map((node) => node.id)).toContain('research:search');
    const schemas = await assistants().getSchemas('agent');
    expect(schemas).toMatchObject({
      graph_id: 'agent',
      state_schema: { type: 'object', properties: { messages: {} } },
    });
    const subgraphs = await assistants().getSubgraphs('subgraph', { recurse: true });
    expect(Object.keys(subgraphs)).toEqual(['research']);
  });
});
