import { readSse } from '../support/sse.js';
import { deadline, REQUEST_TIMEOUT_MS, type Target } from './bench-http.js';
import { RunClock, type RunTiming } from './run-clock.js';

/** POST /threads/{id}/runs/stream (values + messages-tuple), read to the end of its body. */
export async function timeClassicStream(
  target: Target,
  threadId: string,
  run: { readonly assistantId: string; readonly input: unknown },
): Promise<RunTiming> {
  const what = `${target.name} POST /threads/{id}/runs/stream`;
  const clock = new RunClock();
  const response = await fetch(`${target.url}/threads/${threadId}/runs/stream`, {
    method: 'POST',
    headers: { ...target.headers, 'content-type': 'application/json' },
    body: JSON.stringify({
      assistant_id: run.assistantId,
      input: run.input,
      stream_mode: ['values', 'messages-tuple'],
    }),
    signal: deadline(REQUEST_TIMEOUT_MS),
  });
  if (!response.ok) {
    throw new Error(`${what}: HTTP ${response.status} ${(await response.text()).slice(0, 300)}`);
  }
  const errors: unknown[] = [];
  await readSse(response, {
    stopAfter: (event) => {
      clock.saw(event.event);
      if (event.event === 'error') errors.push(event.data);
      return false;
    },
  });
  clock.ended();
  if (errors.length > 0) throw new Error(`${what}: ${JSON.stringify(errors).slice(0, 300)}`);
  return clock.finish(what, 0);
}
