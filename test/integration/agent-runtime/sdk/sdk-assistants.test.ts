import { describe, expect, it } from '@jest/globals';
import type { AssistantVersion } from '@langchain/langgraph-sdk';
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

  it('getVersions says what each version changed from the one it was made from, who and when', async () => {
    const created = await assistants().create({
      graphId: 'agent',
      name: `changes-${tag}`,
      context: { model: 'small' },
      metadata: { team: 'support' },
    });
    await assistants().update(created.assistant_id, {
      context: { model: 'large' },
      metadata: { tier: 'gold' },
    });
    await assistants().setLatest(created.assistant_id, 1);
    // Made while version 1 was latest again: compared with version 1, not with 2.
    await assistants().update(created.assistant_id, {
      name: `changes-${tag}-v3`,
      graphId: 'subgraph',
    });
    const versions = (await assistants().getVersions(created.assistant_id)) as (AssistantVersion & {
      previous_version: number | null;
      changed_by: unknown;
      changes: unknown[];
    })[];
    // Every field the SDK knows is still there, with the new ones beside them.
    expect(versions.map((version) => [version.version, version.graph_id, version.name])).toEqual([
      [3, 'subgraph', `changes-${tag}-v3`],
      [2, 'agent', `changes-${tag}`],
      [1, 'agent', `changes-${tag}`],
    ]);
    expect(versions.map((version) => version.previous_version)).toEqual([1, 1, null]);
    expect(versions[1]?.changes).toEqual([
      { field: 'context.model', change: 'modified', from: 'small', to: 'large' },
      { field: 'metadata.tier', change: 'added', to: 'gold' },
    ]);
    expect(versions[0]?.changes).toEqual([
      { field: 'graph_id', change: 'modified', from: 'agent', to: 'subgraph' },
      { field: 'name', change: 'modified', from: `changes-${tag}`, to: `changes-${tag}-v3` },
    ]);
    expect(versions[2]?.changes).toEqual(
      expect.arrayContaining([{ field: 'context.model', change: 'added', to: 'small' }]),
    );
    // Who: the caller with the platform's API key; when: the version's own created_at.
    expect(new Set(versions.map((version) => JSON.stringify(version.changed_by)))).toEqual(
      new Set([JSON.stringify({ kind: 'platform' })]),
    );
    expect(versions.every((version) => !Number.isNaN(Date.parse(version.created_at)))).toBe(true);
    await assistants().delete(created.assistant_id);
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
