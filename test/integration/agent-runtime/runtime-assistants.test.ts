import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { type Assistant } from '@langchain/langgraph-sdk';
import { EXAMPLE_GRAPH_CONFIG } from '../../support/runtime-process.js';
import { runtimeSuite } from '../../support/runtime-suite.js';

/** The namespace in which the reference platform derives a graph's default assistant id. */
const DEFAULT_ASSISTANT_NAMESPACE = '6ba7b821-9dad-11d1-80b4-00c04fd430c8';

/** RFC 4122 §4.3 name-based uuid, version 5 (SHA-1), written here apart from the runtime's code. */
function uuidV5(name: string, namespace: string): string {
  const namespaceBytes = Buffer.from(namespace.replaceAll('-', ''), 'hex');
  const bytes = createHash('sha1')
    .update(Buffer.concat([namespaceBytes, Buffer.from(name, 'utf8')]))
    .digest()
    .subarray(0, 16);
  bytes.writeUInt8((bytes.readUInt8(6) & 0x0f) | 0x50, 6);
  bytes.writeUInt8((bytes.readUInt8(8) & 0x3f) | 0x80, 8);
  const hex = bytes.toString('hex');
  return [
    hex.slice(0, 8),
    hex.slice(8, 12),
    hex.slice(12, 16),
    hex.slice(16, 20),
    hex.slice(20, 32),
  ].join('-');
}

const GRAPH_IDS = Object.keys(
  (JSON.parse(readFileSync(EXAMPLE_GRAPH_CONFIG, 'utf8')) as { graphs: Record<string, string> })
    .graphs,
);

interface AgentValues {
  messages: { type: string; content: string }[];
}

const QUESTION = { messages: [{ role: 'user', content: 'What is the weather in Tokyo?' }] };

/** The example agent signs its final answer with the model name it read from its context. */
function answeredBy(values: unknown): string | undefined {
  const last = (values as AgentValues).messages.at(-1);
  return last?.content.match(/\(answered by ([^)]+)\)$/)?.[1];
}

describe('agent runtime assistants over HTTP with the official SDK', () => {
  const suite = runtimeSuite('runtime_assistants', { maxRetries: 0 });

  /** Runs the agent graph on a fresh thread through `assistantId` and returns the final values. */
  async function runAgent(assistantId: string): Promise<unknown> {
    const thread = await suite.client.threads.create();
    return suite.client.runs.wait(thread.thread_id, assistantId, { input: QUESTION });
  }

  describe('default assistants', () => {
    it('the example application declares the graphs this file expects', () => {
      expect(GRAPH_IDS.sort()).toEqual(['agent', 'custom', 'interrupt', 'subgraph']);
    });

    it('the uuid5 helper of this file matches the RFC 4122 example for python.org', () => {
      // RFC 4122 / Python's uuid.uuid5(uuid.NAMESPACE_DNS, 'python.org').
      expect(uuidV5('python.org', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe(
        '886313e1-3b8a-5372-9b90-0c9aee199e5d',
      );
    });

    it.each(GRAPH_IDS.map((graphId) => [graphId]))(
      'graph %s has a default assistant at the uuid5 of its graph id, created by the system',
      async (graphId) => {
        const expectedId = uuidV5(graphId, DEFAULT_ASSISTANT_NAMESPACE);

        const assistant = await suite.client.assistants.get(expectedId);
        expect(assistant).toMatchObject({
          assistant_id: expectedId,
          graph_id: graphId,
          version: 1,
          name: graphId,
          metadata: { created_by: 'system' },
        });

        const found = await suite.client.assistants.search({ graphId, limit: 100 });
        expect(found.every((candidate) => candidate.graph_id === graphId)).toBe(true);
        const defaults = found.filter((candidate) => candidate.metadata?.created_by === 'system');
        expect(defaults.map((candidate) => candidate.assistant_id)).toEqual([expectedId]);
      },
    );

    it('a run named by graph id runs the default assistant', async () => {
      const thread = await suite.client.threads.create();
      const run = await suite.client.runs.create(thread.thread_id, 'agent', { input: QUESTION });
      expect(run.assistant_id).toBe(uuidV5('agent', DEFAULT_ASSISTANT_NAMESPACE));
      const values = await suite.client.runs.join(thread.thread_id, run.run_id);
      expect(answeredBy(values)).toBe('fake-tool-caller');
      expect((await suite.client.runs.get(thread.thread_id, run.run_id)).status).toBe('success');
    });

    it("a run named by the default assistant's uuid runs the same graph", async () => {
      const defaultId = uuidV5('agent', DEFAULT_ASSISTANT_NAMESPACE);
      const thread = await suite.client.threads.create();
      const run = await suite.client.runs.create(thread.thread_id, defaultId, { input: QUESTION });
      expect(run.assistant_id).toBe(defaultId);
      const values = (await suite.client.runs.join(
        thread.thread_id,
        run.run_id,
      )) as unknown as AgentValues;
      expect(values.messages.map((message) => message.type)).toEqual(['human', 'ai', 'tool', 'ai']);
    });
  });

  describe('create', () => {
    it('stores context, name, metadata and config as version 1', async () => {
      const tag = randomUUID();
      const created = await suite.client.assistants.create({
        graphId: 'agent',
        name: `weather-bot-${tag}`,
        context: { model_name: 'created-model' },
        metadata: { tag, team: 'weather' },
        config: { configurable: { user_hint: 'x' }, tags: ['t1'] },
      });
      expect(created.assistant_id).not.toBe(uuidV5('agent', DEFAULT_ASSISTANT_NAMESPACE));
      expect(created).toMatchObject({ graph_id: 'agent', version: 1 });

      const fetched = await suite.client.assistants.get(created.assistant_id);
      expect(fetched).toMatchObject({
        assistant_id: created.assistant_id,
        graph_id: 'agent',
        version: 1,
        name: `weather-bot-${tag}`,
        context: { model_name: 'created-model' },
        metadata: { tag, team: 'weather' },
        config: { configurable: { user_hint: 'x' }, tags: ['t1'] },
      });
      expect(fetched.context).toEqual({ model_name: 'created-model' });
      expect(Number.isNaN(Date.parse(fetched.created_at))).toBe(false);
      expect(Number.isNaN(Date.parse(fetched.updated_at))).toBe(false);

      expect(answeredBy(await runAgent(created.assistant_id))).toBe('created-model');
    });

    it('with an existing id: do_nothing returns the stored assistant unchanged, raise answers 409', async () => {
      const assistantId = randomUUID();
      const first = await suite.client.assistants.create({
        graphId: 'agent',
        assistantId,
        name: 'original',
        context: { model_name: 'original-model' },
        metadata: { round: 1 },
      });
      expect(first.assistant_id).toBe(assistantId);

      const again = await suite.client.assistants.create({
        graphId: 'agent',
        assistantId,
        ifExists: 'do_nothing',
        name: 'replacement',
        context: { model_name: 'replacement-model' },
        metadata: { round: 2 },
      });
      expect(again).toMatchObject({
        assistant_id: assistantId,
        version: 1,
        name: 'original',
        context: { model_name: 'original-model' },
        metadata: { round: 1 },
      });

      await expect(
        suite.client.assistants.create({
          graphId: 'agent',
          assistantId,
          context: { model_name: 'replacement-model' },
        }),
      ).rejects.toMatchObject({ status: 409 });

      const stored = await suite.client.assistants.get(assistantId);
      expect(stored).toMatchObject({
        version: 1,
        name: 'original',
        context: { model_name: 'original-model' },
        metadata: { round: 1 },
      });
      const versions = await suite.client.assistants.getVersions(assistantId);
      expect(versions.map((version) => version.version)).toEqual([1]);
    });

    it('an assistant id is one id whatever the case of its hex digits (RFC 4122 §3)', async () => {
      const assistantId = randomUUID();
      await suite.client.assistants.create({
        graphId: 'agent',
        assistantId: assistantId.toUpperCase(),
        context: { model_name: 'upper-case-model' },
      });
      expect((await suite.client.assistants.get(assistantId)).context).toEqual({
        model_name: 'upper-case-model',
      });
      expect(answeredBy(await runAgent(assistantId))).toBe('upper-case-model');
      const updated = await suite.client.assistants.update(assistantId, {
        context: { model_name: 'lower-case-model' },
      });
      expect(updated.version).toBe(2);
      await expect(
        suite.client.assistants.create({ graphId: 'agent', assistantId }),
      ).rejects.toMatchObject({ status: 409 });
    });

    it('for an unknown graph answers 404', async () => {
      await expect(
        suite.client.assistants.create({ graphId: `no-such-graph-${randomUUID()}` }),
      ).rejects.toMatchObject({ status: 404 });
    });
  });

  describe('versions', () => {
    let assistantId: string;

    beforeAll(async () => {
      const created = await suite.client.assistants.create({
        graphId: 'agent',
        name: 'versioned',
        context: { model_name: 'model-v1', temperature: 0 },
        metadata: { owner: 'alice', stage: 'one' },
      });
      assistantId = created.assistant_id;
    });

    it('an update with a new context makes version 2 with exactly that context and merged metadata', async () => {
      const updated = await suite.client.assistants.update(assistantId, {
        context: { model_name: 'model-v2' },
        metadata: { stage: 'two', reviewed: true },
      });
      expect(updated.version).toBe(2);
      expect(updated.context).toEqual({ model_name: 'model-v2' });
      expect(updated.metadata).toEqual({ owner: 'alice', stage: 'two', reviewed: true });

      const fetched = await suite.client.assistants.get(assistantId);
      expect(fetched.version).toBe(2);
      expect(fetched.context).toEqual({ model_name: 'model-v2' });
      expect(fetched.metadata).toEqual({ owner: 'alice', stage: 'two', reviewed: true });
      expect(fetched.name).toBe('versioned');
      expect(Date.parse(fetched.updated_at)).toBeGreaterThanOrEqual(Date.parse(fetched.created_at));
    });

    it('lists versions newest first, each with its own context', async () => {
      const versions = await suite.client.assistants.getVersions(assistantId);
      expect(versions.map((version) => version.version)).toEqual([2, 1]);
      expect(versions.map((version) => version.context)).toEqual([
        { model_name: 'model-v2' },
        { model_name: 'model-v1', temperature: 0 },
      ]);
      expect(versions.every((version) => version.assistant_id === assistantId)).toBe(true);
      expect(versions[1]?.metadata).toEqual({ owner: 'alice', stage: 'one' });

      const firstPage = await suite.client.assistants.getVersions(assistantId, { limit: 1 });
      expect(firstPage.map((version) => version.version)).toEqual([2]);
      const secondPage = await suite.client.assistants.getVersions(assistantId, {
        limit: 1,
        offset: 1,
      });
      expect(secondPage.map((version) => version.version)).toEqual([1]);
    });

    it('a run with the assistant id uses the active version 2', async () => {
      expect(answeredBy(await runAgent(assistantId))).toBe('model-v2');
    });

    it('setLatest(1) makes version 1 active again, for get and for later runs', async () => {
      const active = await suite.client.assistants.setLatest(assistantId, 1);
      expect(active.version).toBe(1);
      expect(active.context).toEqual({ model_name: 'model-v1', temperature: 0 });

      const fetched = await suite.client.assistants.get(assistantId);
      expect(fetched.version).toBe(1);
      expect(fetched.context).toEqual({ model_name: 'model-v1', temperature: 0 });
      expect(fetched.metadata).toEqual({ owner: 'alice', stage: 'one' });

      const versions = await suite.client.assistants.getVersions(assistantId);
      expect(versions.map((version) => version.version)).toEqual([2, 1]);

      const thread = await suite.client.threads.create();
      const run = await suite.client.runs.create(thread.thread_id, assistantId, {
        input: QUESTION,
      });
      expect(run.assistant_id).toBe(assistantId);
      expect(answeredBy(await suite.client.runs.join(thread.thread_id, run.run_id))).toBe(
        'model-v1',
      );
    });

    it('a later update after setLatest(1) becomes version 3, built from the supplied context only', async () => {
      const updated = await suite.client.assistants.update(assistantId, { context: {} });
      expect(updated.version).toBe(3);
      expect(updated.context).toEqual({});
      // Nothing of version 1 is merged in: the agent falls back to its own model name.
      expect(answeredBy(await runAgent(assistantId))).toBe('fake-tool-caller');
      const versions = await suite.client.assistants.getVersions(assistantId);
      expect(versions.map((version) => version.version)).toEqual([3, 2, 1]);
    });

    it('setLatest to a version that does not exist answers 404 and changes nothing', async () => {
      await expect(suite.client.assistants.setLatest(assistantId, 42)).rejects.toMatchObject({
        status: 404,
      });
      expect((await suite.client.assistants.get(assistantId)).version).toBe(3);
    });
  });

  describe('search', () => {
    const batch = randomUUID();
    const names = ['page-a', 'page-b', 'page-c', 'page-d', 'page-e'].map(
      (name) => `${name}-${batch}`,
    );
    const created: Assistant[] = [];

    beforeAll(async () => {
      for (const name of names) {
        created.push(
          await suite.client.assistants.create({
            graphId: 'custom',
            name,
            metadata: { batch, letter: name.slice(5, 6) },
          }),
        );
      }
    });

    it('filters by metadata', async () => {
      const all = await suite.client.assistants.search({ metadata: { batch }, limit: 100 });
      expect(all.map((a) => a.assistant_id).sort()).toEqual(
        created.map((a) => a.assistant_id).sort(),
      );

      const onlyC = await suite.client.assistants.search({ metadata: { batch, letter: 'c' } });
      expect(onlyC.map((a) => a.name)).toEqual([names[2]]);

      const none = await suite.client.assistants.search({ metadata: { batch: randomUUID() } });
      expect(none).toEqual([]);
    });

    it('filters by name', async () => {
      const found = await suite.client.assistants.search({ name: names[3] });
      expect(found.map((a) => a.assistant_id)).toEqual([created[3]?.assistant_id]);
    });

    it('filters by graph id together with metadata', async () => {
      expect(
        await suite.client.assistants.search({ graphId: 'agent', metadata: { batch }, limit: 100 }),
      ).toEqual([]);
      expect(
        await suite.client.assistants.search({
          graphId: 'custom',
          metadata: { batch },
          limit: 100,
        }),
      ).toHaveLength(5);
    });

    it('pages with limit and offset, without overlap or gaps', async () => {
      const pages = await Promise.all(
        [0, 2, 4].map((offset) =>
          suite.client.assistants.search({ metadata: { batch }, limit: 2, offset }),
        ),
      );
      expect(pages.map((page) => page.length)).toEqual([2, 2, 1]);
      const ids = pages.flat().map((a) => a.assistant_id);
      expect(new Set(ids).size).toBe(5);
      expect([...ids].sort()).toEqual(created.map((a) => a.assistant_id).sort());

      const beyond = await suite.client.assistants.search({
        metadata: { batch },
        limit: 2,
        offset: 5,
      });
      expect(beyond).toEqual([]);
    });

    it('pages in a stated order', async () => {
      const first = await suite.client.assistants.search({
        metadata: { batch },
        sortBy: 'name',
        sortOrder: 'asc',
        limit: 2,
      });
      expect(first.map((a) => a.name)).toEqual(names.slice(0, 2));
      const second = await suite.client.assistants.search({
        metadata: { batch },
        sortBy: 'name',
        sortOrder: 'asc',
        limit: 2,
        offset: 2,
      });
      expect(second.map((a) => a.name)).toEqual(names.slice(2, 4));
      const descending = await suite.client.assistants.search({
        metadata: { batch },
        sortBy: 'name',
        sortOrder: 'desc',
        limit: 1,
      });
      expect(descending.map((a) => a.name)).toEqual([names[4]]);
    });
  });

  describe('delete', () => {
    it('removes the assistant with all its versions', async () => {
      const created = await suite.client.assistants.create({
        graphId: 'agent',
        context: { model_name: 'doomed-v1' },
        metadata: { doomed: true },
      });
      const assistantId = created.assistant_id;
      await suite.client.assistants.update(assistantId, { context: { model_name: 'doomed-v2' } });
      expect(
        (await suite.client.assistants.getVersions(assistantId)).map((version) => version.version),
      ).toEqual([2, 1]);

      await suite.client.assistants.delete(assistantId);

      await expect(suite.client.assistants.get(assistantId)).rejects.toMatchObject({ status: 404 });
      await expect(suite.client.assistants.getVersions(assistantId)).rejects.toMatchObject({
        status: 404,
      });
      await expect(suite.client.assistants.setLatest(assistantId, 1)).rejects.toMatchObject({
        status: 404,
      });
      await expect(
        suite.client.assistants.update(assistantId, { context: { model_name: 'revived' } }),
      ).rejects.toMatchObject({ status: 404 });
      await expect(suite.client.assistants.delete(assistantId)).rejects.toMatchObject({
        status: 404,
      });
      expect(await suite.client.assistants.search({ metadata: { doomed: true } })).toEqual([]);

      const thread = await suite.client.threads.create();
      await expect(
        suite.client.runs.create(thread.thread_id, assistantId, { input: QUESTION }),
      ).rejects.toMatchObject({ status: 404 });
    });
  });

  describe('runs name an assistant by uuid or by graph id', () => {
    it('a thread run by uuid records that assistant and applies its context', async () => {
      const created = await suite.client.assistants.create({
        graphId: 'agent',
        context: { model_name: 'by-uuid' },
      });
      const thread = await suite.client.threads.create();
      const run = await suite.client.runs.create(thread.thread_id, created.assistant_id, {
        input: QUESTION,
      });
      expect(run.assistant_id).toBe(created.assistant_id);
      expect(answeredBy(await suite.client.runs.join(thread.thread_id, run.run_id))).toBe(
        'by-uuid',
      );
      expect((await suite.client.runs.get(thread.thread_id, run.run_id)).assistant_id).toBe(
        created.assistant_id,
      );
    });

    it('a stateless run by uuid and by graph id', async () => {
      const created = await suite.client.assistants.create({
        graphId: 'agent',
        context: { model_name: 'stateless-model' },
      });
      expect(
        answeredBy(await suite.client.runs.wait(null, created.assistant_id, { input: QUESTION })),
      ).toBe('stateless-model');
      expect(answeredBy(await suite.client.runs.wait(null, 'agent', { input: QUESTION }))).toBe(
        'fake-tool-caller',
      );
    });

    it('a graph id names the default assistant of that graph, not one created on it later', async () => {
      await suite.client.assistants.create({
        graphId: 'agent',
        context: { model_name: 'not-default' },
      });
      expect(answeredBy(await runAgent('agent'))).toBe('fake-tool-caller');
    });
  });
});
