import {
  ServerResponse,
  validateHeaderName,
  validateHeaderValue,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type Server,
} from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { RuntimeEndpoint } from './runtime-forwarding.js';
import type { UpgradeCourier } from './websocket-courier.js';

/** The client's side of an upgrade: its socket, and what it sent after the request's head. */
export interface ClientUpgrade {
  readonly socket: Duplex;
  readonly head: Buffer;
}

const upgrades = new WeakMap<IncomingMessage, ClientUpgrade>();

/** Emitted on a socket handed over to the courier: it is no longer this process's to close. */
const HANDED_OVER = Symbol('handed over');

/** The upgrade a request asks for, when it came through `serveUpgrades`. */
export function upgradeOf(request: IncomingMessage): ClientUpgrade | undefined {
  return upgrades.get(request);
}

/** Runs `forget` when the socket is handed over (it then never emits `close` here). */
export function onHandedOver(socket: Duplex, forget: () => void): void {
  socket.once(HANDED_OVER, forget);
}

/**
 * Serves upgrade requests (WebSockets) like any other request: `handle` gets a response written
 * on the request's socket, so an upgrade refused (no key, no such deployment, no runtime) is an
 * ordinary HTTP answer, after which the socket is closed. A handler that accepts the upgrade
 * hands the socket over (`handOverUpgrade`) instead of finishing the response. Returns what
 * closes every socket still open here (a server's own closing leaves upgraded ones alone).
 */
export function serveUpgrades(
  server: Server,
  handle: (request: IncomingMessage, response: ServerResponse) => void,
): () => void {
  const open = new Set<Duplex>();
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
    onHandedOver(socket, () => open.delete(socket));
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

/** Where an accepted upgrade goes, and as what request. */
export interface UpgradeTarget {
  readonly endpoint: RuntimeEndpoint;
  readonly method: string;
  /** The path and query, still encoded as the client sent them. */
  readonly path: string;
  /** End-to-end headers only (see `endToEnd`). */
  readonly headers: OutgoingHttpHeaders;
}

/** What Node's own client refuses in a request's path. */
const INVALID_PATH = /[^\u0021-\u00ff]/;

/**
 * The upgrade request's head as the runtime is to get it. Throws, as `http.request` would, for
 * a path or header that cannot be sent.
 */
export function upgradeRequestHead(target: UpgradeTarget, upgrade: string): string {
  if (INVALID_PATH.test(target.path)) {
    throw new TypeError('Request path contains unescaped characters');
  }
  const lines = [`${target.method} ${target.path} HTTP/1.1`];
  const headers = { host: 'localhost', ...target.headers, connection: 'Upgrade', upgrade };
  for (const [name, value] of Object.entries(headers)) {
    validateHeaderName(name);
    for (const one of Array.isArray(value) ? value : [value]) {
      validateHeaderValue(name, String(one));
      lines.push(`${name}: ${String(one)}`);
    }
  }
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/**
 * Hands an upgrade's client socket over to the courier, which sends the runtime the request
 * and joins the two; this process keeps nothing of it. Throws, before anything is handed over,
 * for a path or header that cannot be sent.
 */
export function handOverUpgrade(
  courier: UpgradeCourier,
  key: string,
  target: UpgradeTarget,
  response: ServerResponse,
): void {
  const upgrade = upgradeOf(response.req);
  if (!upgrade) throw new TypeError('The request asks for no upgrade');
  const head = upgradeRequestHead(target, response.req.headers.upgrade ?? 'websocket');
  const socket = upgrade.socket as Socket;
  const opening = [Buffer.from(head, 'latin1'), upgrade.head];
  // What the client sent after the head and this process already read goes first.
  for (let chunk: unknown = socket.read(); chunk !== null; chunk = socket.read()) {
    opening.push(chunk as Buffer);
  }
  response.detachSocket(socket);
  socket.emit(HANDED_OVER);
  courier.handOver({ key, endpoint: target.endpoint, opening: Buffer.concat(opening) }, socket);
}
