import { describe, expect, it } from '@jest/globals';
import { randomBytes, randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { Client } from '@langchain/langgraph-sdk';
import { openedEvents } from '../../support/opened-events.js';
import { runtimeSuite } from '../../support/runtime-suite.js';

const AUTH_APP = resolve('test/fixtures/compat-app/auth-app.json');
const MASTER_KEY = randomBytes(32).toString('hex');

interface Figures {
  readonly rows: number;
  readonly bytes: number;
}

interface ThreadStorage {
  readonly thread_id: string;
  readonly total_bytes: number;
  readonly checkpoints: Figures;
  readonly channel_values: Figures & { readonly by_channel: Record<string, Figures> };
  readonly pending_writes: Figures;
}

describe('GET /threads/{thread_id}/storage', () => {
  const suite = runtimeSuite(
    'runtime_thread_storage',
    { maxRetries: 0 },
    { graphConfig: AUTH_APP, env: { BERTH_MASTER_KEY: MASTER_KEY } },
  );
  const bearer = (user: string) => ({ authorization: `Bearer user-${user}` });
  const as = (user: string): Client =>
    new Client({
      apiUrl: suite.runtime.url,
      apiKey: null,
      defaultHeaders: bearer(user),
      callerOptions: { maxRetries: 0 },
    });
  // The official SDK has no method for this route.
  const storageOf = (threadId: string, user: string): Promise<Response> =>
    fetch(`${suite.runtime.url}/threads/${threadId}/storage`, { headers: bearer(user) });

  /**
   * The same figures summed by hand over the thread's checkpoint stream as the database holds it,
   * each event opened with the thread's key (the log stores a thread's content encrypted), and
   * measured as its JSON text.
   */
  const databaseFigures = async (threadId: string) => {
    const events = await openedEvents(
      suite.database.url,
      MASTER_KEY,
      'where stream_id = $1 order by stream_position',
      [`checkpoints-${threadId}`],
    );
    const bytesOf = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), 'utf8');
    const figures = {
      total: 0,
      checkpoints: 0,
      writes: 0,
      writeBytes: 0,
      values: 0,
      valueBytes: 0,
    };
    for (const { event_type: type, data, opened } of events) {
      expect(opened).toBe(true);
      figures.total += bytesOf(data);
      if (type === 'CheckpointWritesSaved') {
        figures.writes += (data['writes'] as unknown[]).length;
        figures.writeBytes += bytesOf(data);
      }
      if (type !== 'CheckpointSaved') continue;
      figures.checkpoints += 1;
      const checkpoint = data['checkpoint'] as { value?: { channel_values?: object } };
      for (const value of Object.values(checkpoint.value?.channel_values ?? {})) {
        figures.values += 1;
        figures.valueBytes += bytesOf(value);
      }
    }
    return {
      total_bytes: figures.total,
      checkpoints: figures.checkpoints,
      pending_writes: { rows: figures.writes, bytes: figures.writeBytes },
      channel_values: { rows: figures.values, bytes: figures.valueBytes },
    };
  };

  it("counts the bytes of the thread's checkpoints as the log holds them (opened), growing with a run", async () => {
    const alice = as('alice');
    const thread = await alice.threads.create();
    const before = await storageOf(thread.thread_id, 'alice');
    expect(before.status).toBe(200);
    expect(await before.json()).toEqual({
      thread_id: thread.thread_id,
      total_bytes: 0,
      checkpoints: { rows: 0, bytes: 0 },
      channel_values: { rows: 0, bytes: 0, by_channel: {} },
      pending_writes: { rows: 0, bytes: 0 },
    });

    await alice.runs.wait(thread.thread_id, 'greeter', { input: {} });
    const after = (await (await storageOf(thread.thread_id, 'alice')).json()) as ThreadStorage;
    const expected = await databaseFigures(thread.thread_id);
    expect(expected.checkpoints).toBeGreaterThan(0);
    expect(after.total_bytes).toBeGreaterThan(0);
    expect(after.total_bytes).toBe(expected.total_bytes);
    expect(after.total_bytes).toBe(
      after.checkpoints.bytes + after.channel_values.bytes + after.pending_writes.bytes,
    );
    expect(after.checkpoints.rows).toBe(expected.checkpoints);
    expect(after.pending_writes).toEqual(expected.pending_writes);
    expect(after.pending_writes.rows).toBeGreaterThan(0);
    expect({ rows: after.channel_values.rows, bytes: after.channel_values.bytes }).toEqual(
      expected.channel_values,
    );
    expect(after.channel_values.by_channel['text']?.bytes).toBeGreaterThan(0);
    const perChannel = Object.values(after.channel_values.by_channel);
    expect(perChannel.reduce((sum, figures) => sum + figures.bytes, 0)).toBe(
      after.channel_values.bytes,
    );

    await alice.runs.wait(thread.thread_id, 'greeter', { input: {} });
    const again = (await (await storageOf(thread.thread_id, 'alice')).json()) as ThreadStorage;
    expect(again.total_bytes).toBeGreaterThan(after.total_bytes);
    expect(again.checkpoints.rows).toBeGreaterThan(after.checkpoints.rows);
    expect(again.total_bytes).toBe((await databaseFigures(thread.thread_id)).total_bytes);
  });

  it('answers 404 for a thread that does not exist', async () => {
    const response = await storageOf(randomUUID(), 'alice');
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ detail: expect.any(String) });
  });

  it("answers 404 to a user the application's auth does not let see the thread", async () => {
    const thread = await as('alice').threads.create();
    const response = await storageOf(thread.thread_id, 'bob');
    expect(response.status).toBe(404);
    expect((await storageOf(thread.thread_id, 'alice')).status).toBe(200);
  });
});
