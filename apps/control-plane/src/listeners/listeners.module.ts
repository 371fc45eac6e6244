import { Module } from '@nestjs/common';
import { ListenerDirectory } from './listener-directory.js';
import { ListenersController } from './listeners.controller.js';
import { RegisterListenerHandler } from './register-listener/register-listener.handler.js';

/** `/v2/listeners`: the listeners a tenant registered, and the built-in local one. */
@Module({
  controllers: [ListenersController],
  providers: [ListenerDirectory, RegisterListenerHandler],
  exports: [ListenerDirectory],
})
export class ListenersModule {}
