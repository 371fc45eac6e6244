import { Returns } from '#libs/http';
import { Body, Controller, Get, HttpCode, Post, UseInterceptors, Inject } from '@nestjs/common';
import { ProductAliasesInterceptor } from '../product-aliases/product-aliases.interceptor.js';
import { CurrentCaller } from '../tenancy/caller.js';
import type { Caller } from '../tenancy/tenant-directory.js';
import { CommandBus } from '@nestjs/cqrs';
import { RegisterListener } from './register-listener/register-listener.command.js';
import { ListenerDirectory, type ListenerResource } from './listener-directory.js';
import { RegisterListenerDto } from './register-listener/register-listener.dto.js';

@Controller('v2/listeners')
export class ListenersController {
  constructor(
    @Inject(ListenerDirectory) private readonly listeners: ListenerDirectory,
    @Inject(CommandBus) private readonly commands: CommandBus,
  ) {}

  @Returns('ListenerPage')
  @Get()
  async list(
    @CurrentCaller() caller: Caller,
  ): Promise<{ resources: ListenerResource[]; offset: number }> {
    const resources = await this.listeners.list(caller.tenant_id);
    return { resources, offset: resources.length };
  }

  @Returns('Listener', 201)
  @Post()
  @UseInterceptors(ProductAliasesInterceptor)
  @HttpCode(201)
  register(
    @CurrentCaller() caller: Caller,
    @Body() body: RegisterListenerDto,
  ): Promise<ListenerResource> {
    return this.commands.execute(
      new RegisterListener(caller, body.name, body.compute_config ?? {}),
    );
  }
}
