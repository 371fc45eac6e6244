import { Returns, ReturnsNothing } from '#libs/http';
import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Post,
  Put,
  Query,
  Req,
} from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { CommandBus } from '@nestjs/cqrs';
import { GetStoreItemQuery, ListNamespacesDto, SearchStoreItemsDto } from './store.dto.js';
import { DeleteStoreItem } from './delete-item/delete-store-item.command.js';
import { DeleteStoreItemDto } from './delete-item/delete-store-item.dto.js';
import { PutStoreItem } from './put-item/put-store-item.command.js';
import { PutStoreItemDto } from './put-item/put-store-item.dto.js';
import type { StoreItem } from './store-item-record.js';
import { StoreRequests } from './store-requests.service.js';

@Controller('store')
export class StoreController {
  constructor(
    @Inject(StoreRequests) private readonly requests: StoreRequests,
    @Inject(CommandBus) private readonly commands: CommandBus,
  ) {}

  @ReturnsNothing()
  @Put('items')
  @HttpCode(204)
  put(@Body() body: PutStoreItemDto, @Req() request: FastifyRequest): Promise<void> {
    return this.commands.execute(new PutStoreItem(body, request.berthAuth));
  }

  @ReturnsNothing()
  @Delete('items')
  @HttpCode(204)
  delete(@Body() body: DeleteStoreItemDto, @Req() request: FastifyRequest): Promise<void> {
    return this.commands.execute(new DeleteStoreItem(body, request.berthAuth));
  }

  @Returns('StoreItem')
  @Get('items')
  get(
    @Query() query: GetStoreItemQuery,
    @Req() request: FastifyRequest,
  ): Promise<StoreItem | null> {
    return this.requests.get(query, request);
  }

  @Returns('StoreSearchResult')
  @Post('items/search')
  @HttpCode(200)
  search(
    @Body() body: SearchStoreItemsDto,
    @Req() request: FastifyRequest,
  ): Promise<{ items: StoreItem[] }> {
    return this.requests.search(body, request);
  }

  @Returns('StoreNamespaces')
  @Post('namespaces')
  @HttpCode(200)
  namespaces(
    @Body() body: ListNamespacesDto,
    @Req() request: FastifyRequest,
  ): Promise<{ namespaces: string[][] }> {
    return this.requests.namespaces(body, request);
  }
}
