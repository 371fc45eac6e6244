import { Module } from '@nestjs/common';
import { ListenerDirectory } from './listener-directory.js';
import { ListenerPresence } from './listener-presence.js';
import { ListenersController } from './listeners.controller.js';
import { RegisterListenerHandler } from './register-listener/register-listener.handler.js';

/** `/v2/listeners`: the listeners a tenant registered, and the built-in local one. */
@Module({
  controllers: [ListenersController],
  providers: [ListenerDirectory, ListenerPresence, RegisterListenerHandler],
  exports: [ListenerDirectory, ListenerPresence],
})
export class ListenersModule {}
