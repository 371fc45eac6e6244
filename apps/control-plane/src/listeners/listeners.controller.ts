import { Returns } from '#libs/http';
import { Body, Controller, Get, HttpCode, Post, UseInterceptors, Inject } from '@nestjs/common';
import { IsIn, IsObject, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import type { JsonObject } from '#libs/event-store';
import { ProductAliasesInterceptor } from '../product-aliases/product-aliases.interceptor.js';
import { CurrentCaller } from '../tenancy/caller.js';
import type { Caller } from '../tenancy/tenant-directory.js';
import { ListenerDirectory, type ListenerResource } from './listener-directory.js';

export class RegisterListenerDto {
  @IsString()
  @MinLength(1)
  @MaxLength(128)
  name!: string;

  @IsIn(['cluster'])
  compute_type!: 'cluster';

  @IsOptional()
  @IsObject()
  compute_config?: JsonObject;
}

@Controller('v2/listeners')
export class ListenersController {
  constructor(@Inject(ListenerDirectory) private readonly listeners: ListenerDirectory) {}

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
    return this.listeners.register(caller, body.name, body.compute_config ?? {});
  }
}
