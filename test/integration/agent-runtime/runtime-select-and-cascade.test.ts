import { describe, expect, it } from '@jest/globals';
import { runtimeSuite } from '../../support/runtime-suite.js';

describe('search select and deleting an assistant with its threads', () => {
  const suite = runtimeSuite('runtime_select_cascade', { maxRetries: 0 });

  async function search(path: string, body: unknown): Promise<{ status: number; body: unknown }> {
    const response = await fetch(`${suite.runtime.url}${path}`, {
      method: 'POST',
      headers: { 'x-api-key': suite.runtime.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  }

  it('answers only the selected fields of assistants and threads', async () => {
    const tag = `select-${Date.now()}`;
    await suite.client.assistants.create({ graphId: 'agent', name: 'picked', metadata: { tag } });
    const assistants = await suite.client.assistants.search({
      metadata: { tag },
      select: ['assistant_id', 'name'],
    });
    expect(assistants).toHaveLength(1);
    expect(Object.keys(assistants[0] ?? {}).sort()).toEqual(['assistant_id', 'name']);

    await suite.client.threads.create({ metadata: { tag } });
    const threads = await suite.client.threads.search({
      metadata: { tag },
      select: ['thread_id', 'status'],
    });
    expect(threads).toHaveLength(1);
    expect(Object.keys(threads[0] ?? {}).sort()).toEqual(['status', 'thread_id']);

    const refused = await search('/threads/search', { select: ['password'] });
    expect(refused.status).toBe(422);
  });

  it('answers only the selected fields of the runs of a thread', async () => {
    const { thread_id } = await suite.client.threads.create();
    await suite.client.runs.wait(thread_id, 'custom', { input: { steps: 2 } });
    const runs = await suite.client.runs.list(thread_id, { select: ['run_id', 'status'] });
    expect(runs).toHaveLength(1);
    expect(Object.keys(runs[0] ?? {}).sort()).toEqual(['run_id', 'status']);
    expect(runs[0]?.status).toBe('success');
    const response = await fetch(
      `${suite.runtime.url}/threads/${thread_id}/runs?select=run_id&select=kwargs`,
      { headers: { 'x-api-key': suite.runtime.apiKey } },
    );
    const listed = (await response.json()) as Record<string, unknown>[];
    expect(Object.keys(listed[0] ?? {}).sort()).toEqual(['kwargs', 'run_id']);
    const refused = await fetch(`${suite.runtime.url}/threads/${thread_id}/runs?select=secret`, {
      headers: { 'x-api-key': suite.runtime.apiKey },
    });
    expect(refused.status).toBe(422);
  });

  it('deletes the threads an assistant ran on when asked, and only those', async () => {
    const assistant = await suite.client.assistants.create({ graphId: 'custom' });
    const ran = await suite.client.threads.create();
    await suite.client.runs.wait(ran.thread_id, assistant.assistant_id, { input: { steps: 2 } });
    const other = await suite.client.threads.create();
    await suite.client.runs.wait(other.thread_id, 'custom', { input: { steps: 2 } });

    await suite.client.assistants.delete(assistant.assistant_id, { deleteThreads: true });

    await expect(suite.client.threads.get(ran.thread_id)).rejects.toMatchObject({ status: 404 });
    expect((await suite.client.threads.get(other.thread_id)).thread_id).toBe(other.thread_id);
    await expect(suite.client.assistants.get(assistant.assistant_id)).rejects.toMatchObject({
      status: 404,
    });
  });

  it('keeps the threads by default', async () => {
    const assistant = await suite.client.assistants.create({ graphId: 'custom' });
    const ran = await suite.client.threads.create();
    await suite.client.runs.wait(ran.thread_id, assistant.assistant_id, { input: { steps: 2 } });
    await suite.client.assistants.delete(assistant.assistant_id);
    expect((await suite.client.threads.get(ran.thread_id)).thread_id).toBe(ran.thread_id);
  });
});
