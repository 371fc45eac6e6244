import { WebSocket } from 'ws';
import { everything, type Target } from './bench-http.js';
import { rootEnd, type ProtocolMessage } from './run-clock.js';

/** When a run's tokens came, from asking for it (ms), and how many distinct ones. */
export interface StreamedTokens {
  readonly firstAt: number;
  readonly lastAt: number;
  readonly endAt: number;
  readonly tokens: number;
}

/** The model's tokens in a delta or a block's start (not in the finishing events' whole text). */
function tokensIn(data: unknown): string[] {
  const event =
    typeof data === 'object' && data !== null ? (data as { event?: unknown }).event : '';
  if (event !== 'content-block-delta' && event !== 'content-block-start') return [];
  return JSON.stringify(data).match(/token\d+ /g) ?? [];
}

/**
 * A run streamed over thread streaming v2 on a WebSocket (GET /threads/{id}/stream/events, the
 * target's headers on the upgrade): `subscription.subscribe` to messages and lifecycle, then
 * `run.start` with the run's config, read until the root lifecycle ends the run.
 */
export function socketRun(
  target: Target,
  threadId: string,
  run: { readonly assistantId: string; readonly input: unknown; readonly config: unknown },
  timeoutMs: number,
): Promise<StreamedTokens> {
  const url = `${target.url.replace(/^http/, 'ws')}/threads/${threadId}/stream/events`;
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers: { ...target.headers } });
    const seen = new Set<string>();
    let started = Number.NaN;
    let firstAt: number | undefined;
    let lastAt = Number.NaN;
    const settle = (): void => {
      clearTimeout(timer);
      everything.signal.removeEventListener('abort', onAbort);
    };
    const fail = (error: Error): void => {
      settle();
      socket.terminate();
      reject(error);
    };
    const timer = setTimeout(() => {
      fail(new Error(`v2 WebSocket: no end of the run within ${timeoutMs} ms`));
    }, timeoutMs);
    const onAbort = (): void => {
      fail(new Error('v2 WebSocket: aborted'));
    };
    everything.signal.addEventListener('abort', onAbort, { once: true });
    socket.once('unexpected-response', (_request, response) => {
      fail(new Error(`v2 WebSocket: upgrade refused, HTTP ${response.statusCode ?? '?'}`));
    });
    socket.once('error', fail);
    socket.once('open', () => {
      started = performance.now();
      const subscribe = { channels: ['messages', 'lifecycle'] };
      socket.send(JSON.stringify({ id: 1, method: 'subscription.subscribe', params: subscribe }));
      const params = { assistant_id: run.assistantId, input: run.input, config: run.config };
      socket.send(JSON.stringify({ id: 2, method: 'run.start', params }));
    });
    socket.on('message', (data: Buffer) => {
      const message = JSON.parse(data.toString()) as ProtocolMessage;
      if (message.type === 'error') {
        fail(new Error(`v2 WebSocket: ${JSON.stringify(message).slice(0, 300)}`));
        return;
      }
      if (message.type !== 'event') return;
      if (message.method === 'messages') {
        const tokens = tokensIn(message.params?.data);
        if (tokens.length > 0) {
          lastAt = performance.now();
          firstAt ??= lastAt;
          for (const token of tokens) seen.add(token);
        }
        return;
      }
      const end = rootEnd(message);
      if (end === undefined) return;
      const endAt = performance.now();
      if (end !== 'completed') {
        fail(new Error(`v2 WebSocket: the run ended ${end}`));
        return;
      }
      settle();
      socket.close();
      resolve({
        firstAt: (firstAt ?? Number.NaN) - started,
        lastAt: lastAt - started,
        endAt: endAt - started,
        tokens: seen.size,
      });
    });
  });
}
