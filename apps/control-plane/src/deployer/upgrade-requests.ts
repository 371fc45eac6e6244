import { ServerResponse, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/** The client's side of an upgrade: its socket, and what it sent after the request's head. */
export interface ClientUpgrade {
  readonly socket: Duplex;
  readonly head: Buffer;
}

const upgrades = new WeakMap<IncomingMessage, ClientUpgrade>();

/** The upgrade a request asks for, when it came through `serveUpgrades`. */
export function upgradeOf(request: IncomingMessage): ClientUpgrade | undefined {
  return upgrades.get(request);
}

/**
 * Serves upgrade requests (WebSockets) like any other request: `handle` gets a response written
 * on the request's socket, so an upgrade refused (no key, no such deployment, no runtime) is an
 * ordinary HTTP answer, after which the socket is closed. A handler that accepts the upgrade
 * (`upgradeOf`) takes the socket over instead of finishing the response. Returns what closes
 * every socket still open, upgraded ones included (a server's own closing leaves those alone).
 */
export function serveUpgrades(
  server: Server,
  handle: (request: IncomingMessage, response: ServerResponse) => void,
): () => void {
  const open = new Set<Duplex>();
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
    // Node stops watching the socket for errors once it hands an upgrade over.
    socket.on('error', () => socket.destroy());
    upgrades.set(request, { socket, head });
    const response = new ServerResponse(request);
    response.shouldKeepAlive = false;
    response.assignSocket(socket as Socket);
    response.once('finish', () => socket.end());
    try {
      handle(request, response);
    } catch {
      socket.destroy();
    }
  });
  return () => {
    for (const socket of open) socket.destroy();
  };
}
