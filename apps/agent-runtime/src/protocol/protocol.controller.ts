import { Body, Controller, HttpCode, Inject, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SocketTickets, type IssuedTicket } from './socket-tickets.js';
import { notFound } from '#libs/domain';
import { StreamsEvents, sendSse, type SseRecord } from '#libs/http';
import { AuthEvent } from '../auth/auth-event.decorator.js';
import type { RunCaller } from '../auth/run-caller.js';
import { RunCallerOf } from '../auth/run-caller.decorator.js';
import { IdPipe } from '../common/id.pipe.js';
import { isUuid } from '../common/uuid5.js';
import { matchesFilter, type EventFilter } from '../protocol-events/event-filter.js';
import { parseProtocolCommand } from './protocol-command.parse.js';
import { ProtocolCommands } from './protocol-commands.js';
import { EventStreamRequestDto } from './protocol.dto.js';
import { protocolFailure, type ProtocolResponse } from '../protocol-events/protocol-event.js';
import { ThreadProtocolEvents } from './thread-protocol-events.js';

const HEARTBEAT_MS = 10_000;

/** A thread id that is no uuid names no thread, now or later. */
function requireThreadId(threadId: string): void {
  if (!isUuid(threadId)) throw notFound(`Thread ${threadId} not found`);
}

/** Thread streaming v2 over HTTP: commands, and filtered SSE event streams from the log. */
@Controller()
export class ProtocolController {
  constructor(
    @Inject(ProtocolCommands) private readonly commands: ProtocolCommands,
    @Inject(ThreadProtocolEvents) private readonly events: ThreadProtocolEvents,
    @Inject(SocketTickets) private readonly tickets: SocketTickets,
  ) {}

  @AuthEvent('threads:create_run')
  @Post('threads/:threadId/commands')
  async command(
    @Param('threadId', IdPipe) threadId: string,
    @Body() body: unknown,
    @RunCallerOf() caller: RunCaller | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ProtocolResponse & { detail?: string }> {
    requireThreadId(threadId);
    const command = parseProtocolCommand(body);
    if (typeof command === 'string') {
      void reply.status(400);
      return { ...protocolFailure(null, 'invalid_argument', command), detail: command };
    }
    void reply.status(200);
    return this.commands.handle(threadId, command, caller);
  }

  /** A single-use ticket that opens this thread's WebSocket from a browser (see docs/runtime.md). */
  @AuthEvent('threads:read')
  @Post('threads/:threadId/stream/tickets')
  @HttpCode(200)
  ticket(
    @Param('threadId', IdPipe) threadId: string,
    @Req() request: FastifyRequest,
  ): Promise<IssuedTicket> {
    requireThreadId(threadId);
    return this.tickets.issue(threadId, request.berthAuth ?? { kind: 'platform' });
  }

  /**
   * A ticket that opens the WebSocket of any thread its holder may read, for a browser's
   * `useStream` (see docs/runtime.md). Issued to whoever authenticated; each socket and command
   * is then authorized as for them.
   */
  @Post('stream/tickets')
  @HttpCode(200)
  browserTicket(@Req() request: FastifyRequest): Promise<IssuedTicket> {
    return this.tickets.issueForBrowser(request.berthAuth ?? { kind: 'platform' });
  }

  @StreamsEvents()
  @AuthEvent('threads:read')
  @Post('threads/:threadId/stream/events')
  @HttpCode(200)
  async stream(
    @Param('threadId', IdPipe) threadId: string,
    @Body() body: EventStreamRequestDto,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    requireThreadId(threadId);
    const filter: EventFilter = {
      channels: new Set(body.channels),
      namespaces: body.namespaces,
      depth: body.depth,
    };
    const disconnect = new AbortController();
    const events = await this.events.open(threadId, body.since, disconnect.signal);
    async function* records(): AsyncGenerator<SseRecord> {
      for await (const event of events) {
        if (matchesFilter(filter, event))
          yield { id: event.event_id, event: event.method, data: event };
      }
    }
    await sendSse(reply, records(), {
      headers: { 'content-location': `/threads/${threadId}` },
      heartbeatMs: HEARTBEAT_MS,
      disconnect,
    });
  }
}
