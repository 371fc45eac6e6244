import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { isRefusal, type HttpDrain } from '#libs/http';
import type { AuthContext } from '../auth/custom-auth.js';
import { runCallerOf } from '../auth/run-caller.js';
import { RequestAuthorization } from '../authorization/request-authorization.js';
import { ThreadsService } from '../threads/threads.service.js';
import { ProtocolCommands } from './protocol-commands.js';
import {
  protocolFailure,
  type ProtocolCommand,
  type ProtocolResponse,
} from '../protocol-events/protocol-event.js';
import { registerProtocolSocket } from './protocol-socket.route.js';
import { acceptSocketTickets } from './socket-ticket-protocol.js';
import { SocketTickets } from './socket-tickets.js';
import { ThreadProtocolEvents } from './thread-protocol-events.js';

/** Before the key hooks: a WebSocket upgrade may present a ticket in place of the key. */
export function acceptProtocolSocketTickets(app: NestFastifyApplication): void {
  const tickets = app.get(SocketTickets);
  acceptSocketTickets(app.getHttpAdapter().getInstance(), (ticket, threadId) =>
    tickets.redeem(ticket, threadId),
  );
}

/**
 * The WebSocket transport of thread streaming v2, with the checks the HTTP routes get from their
 * `@AuthEvent`: reading the thread to open it, running on it for each command.
 */
export function serveProtocolSockets(app: NestFastifyApplication, drain: HttpDrain): void {
  const authorization = app.get(RequestAuthorization);
  const threads = app.get(ThreadsService);
  const commands = app.get(ProtocolCommands);
  const events = app.get(ThreadProtocolEvents);
  const command = async (
    threadId: string,
    who: AuthContext | undefined,
    sent: ProtocolCommand,
  ): Promise<ProtocolResponse> => {
    try {
      await authorization.authorize(
        who,
        { resource: 'threads', action: 'create_run' },
        { threadId },
        {
          ...sent.params,
        },
      );
    } catch (error) {
      if (isRefusal(error)) {
        return protocolFailure(sent.id, 'permission_denied', error.message);
      }
      throw error;
    }
    return commands.handle(threadId, sent, runCallerOf(who));
  };
  registerProtocolSocket(app.getHttpAdapter().getInstance(), {
    command,
    open: (threadId, since, signal, onCaughtUp) => events.open(threadId, since, signal, onCaughtUp),
    // A thread not made yet is one the caller is about to run on.
    mayRead: async (threadId, who) => {
      const action = (await threads.exists(threadId)) ? 'read' : 'create_run';
      await authorization.authorize(who, { resource: 'threads', action }, { threadId }, {});
    },
    drain,
  });
}
