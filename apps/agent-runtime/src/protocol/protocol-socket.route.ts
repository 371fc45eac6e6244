import websocket from '@fastify/websocket';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { refusalStatusOf, type HttpDrain } from '#libs/http';
import { isUuid } from '../common/uuid5.js';
import type { AuthContext } from '../auth/custom-auth.js';
import type {
  ProtocolCommand,
  ProtocolEvent,
  ProtocolResponse,
} from '../protocol-events/protocol-event.js';
import { ProtocolSocketSession } from './protocol-socket-session.js';
import { ticketOf } from './socket-ticket-protocol.js';

const PATH = '/threads/:threadId/stream/events';
/** A command is small; a client sending more than this is refused. */
const MAX_MESSAGE_BYTES = 1024 * 1024;
/** Close code for "the server is restarting": the SDK reconnects. */
const SERVICE_RESTART = 1012;

export interface ProtocolSocketServices {
  readonly command: (
    threadId: string,
    who: AuthContext | undefined,
    command: ProtocolCommand,
  ) => Promise<ProtocolResponse>;
  readonly open: (
    threadId: string,
    since: number | undefined,
    signal: AbortSignal,
    onCaughtUp: () => void,
  ) => Promise<AsyncIterable<ProtocolEvent>>;
  /** Throws (an HTTP error) when the caller may not read the thread. */
  readonly mayRead: (threadId: string, who: AuthContext | undefined) => Promise<void>;
  readonly drain: HttpDrain;
}

function threadIdOf(request: FastifyRequest): string {
  return (request.params as { threadId: string }).threadId;
}

async function refuse(reply: FastifyReply, status: number, detail: string): Promise<FastifyReply> {
  return reply.status(status).send({ detail });
}

/**
 * Thread streaming v2 over a WebSocket on `GET /threads/{id}/stream/events`: the same commands and
 * events as over HTTP, subscriptions in-band. The upgrade passes the same key or application auth
 * as every request (a browser presents a ticket instead: `socket-tickets.ts`).
 */
export function registerProtocolSocket(
  fastify: FastifyInstance,
  services: ProtocolSocketServices,
): void {
  const sockets = new Set<ProtocolSocketSession & { end: () => void }>();
  // An upgrade refused with an HTTP answer (no key, a used ticket, 404) leaves its socket to no
  // one once the answer is out: it is closed, or the server could never finish closing.
  fastify.addHook('onResponse', (request, _reply, done) => {
    if (request.headers.upgrade?.toLowerCase() === 'websocket') request.raw.socket.destroy();
    done();
  });
  void fastify.register(websocket, {
    options: {
      maxPayload: MAX_MESSAGE_BYTES,
      // A browser that offered its ticket as a subprotocol must hear it accepted.
      handleProtocols: (protocols: Set<string>) => [...protocols].find((p) => ticketOf(p)) ?? false,
    },
  });
  void fastify.register((scope, _options, done) => {
    scope.route({
      method: 'GET',
      url: PATH,
      preHandler: async (request, reply) => {
        const threadId = threadIdOf(request);
        if (!isUuid(threadId)) return refuse(reply, 404, `Thread ${threadId} not found`);
        try {
          await services.mayRead(threadId, request.berthAuth);
        } catch (error) {
          const status = refusalStatusOf(error);
          if (status !== undefined) return refuse(reply, status, (error as Error).message);
          throw error;
        }
        return undefined;
      },
      handler: (_request, reply) =>
        refuse(reply, 426, 'This is a WebSocket: upgrade to it, or POST here for an SSE stream'),
      wsHandler: (socket, request) => {
        const threadId = threadIdOf(request);
        const who = request.berthAuth;
        const session = Object.assign(
          new ProtocolSocketSession(socket, {
            command: (command) => services.command(threadId, who, command),
            open: (since, signal, onCaughtUp) => services.open(threadId, since, signal, onCaughtUp),
          }),
          {
            end: () => {
              socket.close(SERVICE_RESTART, 'The server is restarting');
            },
          },
        );
        sockets.add(session);
        socket.on('message', (data: Buffer) => {
          void session.receive(data.toString('utf8'));
        });
        socket.on('close', () => {
          session.close();
          sockets.delete(session);
        });
      },
    });
    done();
  });
  services.drain.signal.addEventListener('abort', () => {
    for (const session of sockets) session.end();
  });
}
