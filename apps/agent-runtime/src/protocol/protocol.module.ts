import { Module } from '@nestjs/common';
import { RunsModule } from '../runs/runs.module.js';
import { ThreadsModule } from '../threads/threads.module.js';
import { ProtocolCommands } from './protocol-commands.js';
import { ProtocolController } from './protocol.controller.js';
import { SocketTickets } from './socket-tickets.js';
import { ThreadProtocolEvents } from './thread-protocol-events.js';

/** Thread streaming v2: its commands, its event stream, and the tickets of its WebSocket. */
@Module({
  imports: [RunsModule, ThreadsModule],
  controllers: [ProtocolController],
  providers: [ProtocolCommands, ThreadProtocolEvents, SocketTickets],
})
export class ProtocolModule {}
