import { readSse } from '../support/sse.js';
import { deadline, json, post, REQUEST_TIMEOUT_MS, type Target } from './bench-http.js';
import { RunClock, rootEnd, type ProtocolMessage, type RunTiming } from './run-clock.js';

/** What a v2 stream or subscription asks for: the run's output, and its lifecycle to see it end. */
export const V2_CHANNELS = ['values', 'messages', 'lifecycle'];

/** The `run.start` command of thread streaming v2. */
export function runStart(
  id: number,
  run: { readonly assistantId: string; readonly input: unknown },
): Record<string, unknown> {
  return { id, method: 'run.start', params: { assistant_id: run.assistantId, input: run.input } };
}

/**
 * Thread streaming v2 over SSE: POST /threads/{id}/stream/events, and once its headers came,
 * `run.start` through POST /threads/{id}/commands; read until the root lifecycle ends the run.
 */
export async function timeProtocolSse(
  target: Target,
  threadId: string,
  run: { readonly assistantId: string; readonly input: unknown },
): Promise<RunTiming> {
  const what = `${target.name} v2 SSE`;
  const giveUp = new AbortController();
  const opening = performance.now();
  const response = await fetch(`${target.url}/threads/${threadId}/stream/events`, {
    method: 'POST',
    headers: { ...target.headers, 'content-type': 'application/json' },
    body: JSON.stringify({ channels: V2_CHANNELS }),
    signal: AbortSignal.any([deadline(REQUEST_TIMEOUT_MS), giveUp.signal]),
  });
  if (!response.ok) {
    throw new Error(`${what}: HTTP ${response.status} ${(await response.text()).slice(0, 300)}`);
  }
  const openMs = performance.now() - opening;
  const clock = new RunClock();
  let end: string | undefined;
  const reading = readSse(response, {
    stopAfter: (event) => {
      const message = event.data as ProtocolMessage;
      clock.saw(message.method ?? event.event);
      end = rootEnd(message);
      if (end !== undefined) clock.ended();
      return end !== undefined;
    },
  });
  clock.start();
  try {
    const answer = await json(
      await post(target, `/threads/${threadId}/commands`, runStart(1, run)),
      `${what} run.start`,
    );
    if ((answer as ProtocolMessage).type !== 'success') {
      throw new Error(`${what} run.start: ${JSON.stringify(answer).slice(0, 300)}`);
    }
  } catch (error) {
    giveUp.abort();
    await reading.catch(() => undefined);
    throw error;
  }
  await reading;
  if (end !== 'completed') throw new Error(`${what}: the run ended ${end ?? 'without its end'}`);
  return clock.finish(what, openMs);
}
