import { WebSocket } from 'ws';
import { everything, REQUEST_TIMEOUT_MS, type Target } from './bench-http.js';
import { RunClock, rootEnd, type ProtocolMessage, type RunTiming } from './run-clock.js';
import { runStart, V2_CHANNELS } from './protocol-sse-timing.js';

/**
 * Thread streaming v2 over a WebSocket (GET /threads/{id}/stream/events, the target's headers on
 * the upgrade; `ws`, Node 20 has no WebSocket of its own): once it is open,
 * `subscription.subscribe` and `run.start` one after the other, as the SDK sends them (the JS
 * server answers the subscription only once a run starts); read until the root lifecycle ends
 * the run.
 */
export function timeProtocolSocket(
  target: Target,
  threadId: string,
  run: { readonly assistantId: string; readonly input: unknown },
): Promise<RunTiming> {
  const what = `${target.name} v2 WebSocket`;
  const url = `${target.url.replace(/^http/, 'ws')}/threads/${threadId}/stream/events`;
  return new Promise((resolve, reject) => {
    const opening = performance.now();
    const socket = new WebSocket(url, { headers: { ...target.headers } });
    const clock = new RunClock();
    let openMs = Number.NaN;
    const done = (): void => {
      clearTimeout(timer);
      everything.signal.removeEventListener('abort', onAbort);
    };
    const fail = (error: Error): void => {
      done();
      socket.terminate();
      reject(error);
    };
    const timer = setTimeout(() => {
      fail(new Error(`${what}: no end of the run within ${REQUEST_TIMEOUT_MS} ms`));
    }, REQUEST_TIMEOUT_MS);
    const onAbort = (): void => {
      fail(new Error(`${what}: aborted`));
    };
    everything.signal.addEventListener('abort', onAbort, { once: true });
    socket.once('unexpected-response', (_request, response) => {
      fail(new Error(`${what}: upgrade refused, HTTP ${response.statusCode ?? '?'}`));
    });
    socket.once('error', fail);
    socket.once('open', () => {
      openMs = performance.now() - opening;
      const subscribe = { channels: V2_CHANNELS };
      socket.send(JSON.stringify({ id: 1, method: 'subscription.subscribe', params: subscribe }));
      clock.start();
      socket.send(JSON.stringify(runStart(2, run)));
    });
    socket.on('message', (data: Buffer) => {
      const message = JSON.parse(data.toString()) as ProtocolMessage;
      if (message.type === 'error') {
        fail(new Error(`${what}: ${JSON.stringify(message).slice(0, 300)}`));
        return;
      }
      if (message.type !== 'event') return;
      clock.saw(message.method ?? '');
      const end = rootEnd(message);
      if (end === undefined) return;
      clock.ended();
      if (end !== 'completed') {
        fail(new Error(`${what}: the run ended ${end}`));
        return;
      }
      done();
      socket.close();
      try {
        resolve(clock.finish(what, openMs));
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  });
}
