import { describe, expect, it } from '@jest/globals';
import { readSse } from '../../support/sse.js';
import { randomBytes } from 'node:crypto';
import { openedEvents } from '../../support/opened-events.js';
import { apiRequest, runtimeSuite } from '../../support/runtime-suite.js';

const QUESTION = { messages: [{ role: 'user', content: 'What is the weather in Oslo?' }] };
const STREAM_MODE = ['values', 'updates', 'messages-tuple'];
const MASTER_KEY = randomBytes(32).toString('hex');

interface Chunk {
  readonly id: string | undefined;
  readonly event: string;
  readonly data: unknown;
}

describe('values chunks stored as what changed', () => {
  const suite = runtimeSuite('values_chunk_deltas', {}, { env: { BERTH_MASTER_KEY: MASTER_KEY } });
  const request = (): ReturnType<typeof apiRequest> => apiRequest(suite);

  async function chunksOf(response: Response): Promise<Chunk[]> {
    expect(response.status).toBe(200);
    return (await readSse(response)).filter((chunk) => chunk.event !== 'end');
  }

  async function joined(threadId: string, runId: string, lastEventId: string): Promise<Chunk[]> {
    const response = await fetch(
      `${suite.runtime.url}/threads/${threadId}/runs/${runId}/stream?stream_mode=${STREAM_MODE.join('&stream_mode=')}`,
      { headers: { 'x-api-key': suite.runtime.apiKey, 'last-event-id': lastEventId } },
    );
    return chunksOf(response);
  }

  it('streams, replays and resumes every values chunk whole, on a long thread', async () => {
    const thread = await suite.client.threads.create();
    for (let run = 0; run < 12; run += 1) {
      await suite.client.runs.wait(thread.thread_id, 'agent', { input: QUESTION });
    }
    const live = await chunksOf(
      await request()('POST', `/threads/${thread.thread_id}/runs/stream`, {
        assistant_id: 'agent',
        input: QUESTION,
        stream_mode: STREAM_MODE,
      }),
    );
    const runId = (live[0]?.data as { run_id: string }).run_id;
    const values = live.filter((chunk) => chunk.event === 'values');
    expect(values.length).toBeGreaterThanOrEqual(3);
    const messagesOf = (chunk: Chunk | undefined) =>
      (chunk?.data as { messages: unknown[] }).messages;
    expect(messagesOf(values[0])).toHaveLength(49);
    expect(messagesOf(values.at(-1))).toHaveLength(52);

    // In the log, each of the run's values chunks holds only what changed: the first since the
    // thread's previous run ended, the others since the chunk before.
    const runs = await suite.client.runs.list(thread.thread_id, { limit: 2 });
    const previousRun = runs.find((run) => run.run_id !== runId)?.run_id;
    // The log holds them encrypted under the thread's key: opened, as the runtime reads them.
    const runEvents = await openedEvents(
      suite.database.url,
      MASTER_KEY,
      'where stream_id = $1 order by stream_position',
      [`run-${runId}`],
    );
    const bytesOf = (value: unknown): number => JSON.stringify(value).length;
    const stored = runEvents
      .filter((event) => event.data['event'] === 'values')
      .map((event) => ({
        extends: event.data['extends'] as { run?: string; seq: number },
        bytes: bytesOf(event.data['data']),
      }));
    expect(stored).toHaveLength(values.length);
    expect(stored[0]?.extends).toMatchObject({ run: previousRun, seq: -1 });
    for (const [index, row] of stored.entries()) {
      expect(row.extends).toEqual(expect.objectContaining({ head: expect.any(Number) as unknown }));
      expect(row.bytes).toBeLessThan(JSON.stringify(values[index]?.data).length / 5);
    }

    // Its outcome keeps the final values as what changed since the last chunk; every reader of
    // them (join, the thread's values, its state) gets them whole.
    const outcome = runEvents
      .filter((event) => event.event_type === 'RunFinished')
      .map((event) => ({
        values_extends: event.data['values_extends'] as { seq: number } | null,
        bytes: bytesOf(event.data['values']),
      }))[0];
    const finalValues = values.at(-1)?.data;
    expect(outcome?.values_extends).toMatchObject({ seq: Number(values.at(-1)?.id) });
    expect(outcome?.bytes).toBeLessThan(JSON.stringify(finalValues).length / 5);
    expect(await suite.client.runs.join(thread.thread_id, runId)).toEqual(finalValues);
    expect((await suite.client.threads.get(thread.thread_id)).values).toEqual(finalValues);
    expect((await suite.client.threads.getState(thread.thread_id)).values).toEqual(finalValues);

    // A replay from the start, and a resume after every chunk, give exactly what was streamed live.
    expect(await joined(thread.thread_id, runId, '-1')).toEqual(live);
    for (let cut = 0; cut < live.length - 1; cut += 1) {
      const resumed = await joined(thread.thread_id, runId, String(live[cut]?.id));
      expect(resumed).toEqual(live.slice(cut + 1));
    }

    // A runtime that remembers nothing of the run reads it all back from the log the same.
    await suite.restart();
    expect(await suite.client.runs.join(thread.thread_id, runId)).toEqual(finalValues);
    expect(await joined(thread.thread_id, runId, '-1')).toEqual(live);
    expect(await joined(thread.thread_id, runId, String(live[1]?.id))).toEqual(live.slice(2));

    // Thread streaming v2 (which starts at the thread's latest run) carries the same states.
    const replay = await readSse(
      await request()('POST', `/threads/${thread.thread_id}/stream/events`, {
        channels: ['values', 'lifecycle'],
      }),
      {
        stopAfter: (record) => {
          const event = record.data as { method: string; params: { data: { event?: string } } };
          return event.method === 'lifecycle' && event.params.data.event === 'completed';
        },
      },
    );
    const replayedValues = replay
      .map((record) => record.data as { method: string; params: { data: unknown } })
      .filter((event) => event.method === 'values')
      .map((event) => event.params.data);
    expect(replayedValues).toEqual(values.map((chunk) => chunk.data));
  });
});
