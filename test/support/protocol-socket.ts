import { WebSocket, type ClientOptions } from 'ws';

/** A message of thread streaming v2 as a WebSocket carries it (an answer or an event). */
export type SocketMessage = Record<string, unknown> & {
  readonly method?: string;
  readonly params?: { namespace?: string[]; data?: Record<string, unknown> };
};

/** The v2 WebSocket of a thread under a runtime's base URL (`http…` becomes `ws…`). */
export function threadSocketUrl(base: string, threadId: string): string {
  return `${base.replace(/^http/, 'ws')}/threads/${threadId}/stream/events`;
}

/** Opens a WebSocket; rejects with the status when the upgrade is refused. */
export function openSocket(
  url: string,
  protocols: string[] = [],
  options: ClientOptions = {},
): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, protocols, options);
    socket.once('open', () => {
      resolve(socket);
    });
    socket.once('unexpected-response', (_request, response) => {
      reject(new Error(`upgrade refused: ${response.statusCode ?? 0}`));
      socket.terminate();
    });
    socket.once('error', reject);
  });
}

/** The HTTP answer that refused an upgrade, its body parsed; rejects if the upgrade is accepted. */
export function refusedUpgrade(
  url: string,
  protocols: string[] = [],
  options: ClientOptions = {},
): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, protocols, options);
    socket.once('open', () => {
      socket.terminate();
      reject(new Error('the upgrade was accepted'));
    });
    socket.once('unexpected-response', (_request, response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => {
        resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) as unknown });
        socket.terminate();
      });
    });
    socket.once('error', () => undefined);
  });
}

const isRootEnd = (message: SocketMessage): boolean =>
  message.method === 'lifecycle' &&
  message.params?.namespace?.length === 0 &&
  ['completed', 'failed', 'interrupted'].includes(String(message.params.data?.event));

/**
 * Subscribes to `lifecycle` (command 1), starts a run (command 2) and collects what the socket
 * receives until the root lifecycle event that ends the run.
 */
export function runOverSocket(
  socket: WebSocket,
  assistantId: string,
  input: Record<string, unknown>,
): Promise<SocketMessage[]> {
  const received: SocketMessage[] = [];
  const ended = new Promise<SocketMessage[]>((resolve, reject) => {
    socket.on('message', (data: Buffer) => {
      const message = JSON.parse(data.toString()) as SocketMessage;
      received.push(message);
      if (isRootEnd(message)) resolve(received);
    });
    socket.once('close', () => {
      reject(new Error(`The socket closed before the run ended: ${JSON.stringify(received)}`));
    });
  });
  socket.send(
    JSON.stringify({
      id: 1,
      method: 'subscription.subscribe',
      params: { channels: ['lifecycle'] },
    }),
  );
  socket.send(
    JSON.stringify({ id: 2, method: 'run.start', params: { assistant_id: assistantId, input } }),
  );
  return ended;
}
