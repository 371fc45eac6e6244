import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuthContext } from '../auth/custom-auth.js';

/** A browser offers its ticket as the WebSocket subprotocol `berth.ticket.<ticket>`. */
export const TICKET_PROTOCOL_PREFIX = 'berth.ticket.';

const SOCKET_PATH = /^\/threads\/([^/?]+)\/stream\/events(?:\?|$)/;

/** The ticket a subprotocol carries, if it is a ticket's. */
export function ticketOf(protocol: string): string | undefined {
  const trimmed = protocol.trim();
  return trimmed.startsWith(TICKET_PROTOCOL_PREFIX) &&
    trimmed.length > TICKET_PROTOCOL_PREFIX.length
    ? trimmed.slice(TICKET_PROTOCOL_PREFIX.length)
    : undefined;
}

function offeredTicket(request: FastifyRequest): string | undefined {
  if (request.headers.upgrade?.toLowerCase() !== 'websocket') return undefined;
  const offered = request.headers['sec-websocket-protocol'];
  if (typeof offered !== 'string') return undefined;
  return offered
    .split(',')
    .map(ticketOf)
    .find((ticket) => ticket !== undefined);
}

/**
 * Before the key is asked for: an upgrade to a thread's WebSocket that offers a ticket acts for
 * whoever the ticket was issued to, once; a ticket unknown, used, expired or for another thread
 * is a 401. Other requests go on to the key or the application's authentication.
 */
export function acceptSocketTickets(
  fastify: FastifyInstance,
  redeem: (ticket: string, threadId: string) => Promise<AuthContext | undefined>,
): void {
  fastify.addHook('onRequest', async (request, reply) => {
    const ticket = offeredTicket(request);
    if (ticket === undefined) return undefined;
    const threadId = SOCKET_PATH.exec(request.url)?.[1];
    const who = threadId ? await redeem(ticket, decodeURIComponent(threadId)) : undefined;
    if (!who) {
      return reply
        .status(401)
        .send({ detail: 'The WebSocket ticket is unknown, used, expired or for another thread' });
    }
    request.berthAuth = who;
    return undefined;
  });
}
