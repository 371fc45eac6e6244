import { Returns, ReturnsNothing, listOf } from '#libs/http';
import {
  Body,
  Controller,
  Delete,
  HttpCode,
  Inject,
  Param,
  Patch,
  Post,
  Req,
} from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { AuthEvent } from '../auth/auth-event.decorator.js';
import { IdPipe } from '../common/id.pipe.js';
import { CountCronsDto, SearchCronsDto } from './crons.dto.js';
import { CreateCronDto } from './create-cron/create-cron.dto.js';
import { UpdateCronDto } from './update-cron/update-cron.dto.js';
import { CommandBus } from '@nestjs/cqrs';
import { CronsService } from './crons.service.js';
import { CreateCron } from './create-cron/create-cron.command.js';
import { DeleteCron } from './delete-cron/delete-cron.command.js';
import { UpdateCron } from './update-cron/update-cron.command.js';
import type { Cron } from './cron.resource.js';

const now = (): string => new Date().toISOString();

/** The user the application's auth says the request is for, kept as the cron's `user_id`. */
function userOf(request: FastifyRequest): string | null {
  const who = request.berthAuth;
  return who?.kind === 'user' ? who.user.identity : null;
}

@Controller()
export class CronsController {
  constructor(
    @Inject(CronsService) private readonly crons: CronsService,
    @Inject(CommandBus) private readonly commands: CommandBus,
  ) {}

  @Returns('Cron')
  @AuthEvent('crons:create')
  @Post('runs/crons')
  @HttpCode(200)
  create(@Body() body: CreateCronDto, @Req() request: FastifyRequest): Promise<Cron> {
    return this.commands.execute(new CreateCron(null, body, userOf(request), now()));
  }

  @Returns('Cron')
  @AuthEvent('crons:create')
  @Post('threads/:threadId/runs/crons')
  @HttpCode(200)
  createForThread(
    @Param('threadId', IdPipe) threadId: string,
    @Body() body: CreateCronDto,
    @Req() request: FastifyRequest,
  ): Promise<Cron> {
    return this.commands.execute(new CreateCron(threadId, body, userOf(request), now()));
  }

  @Returns(listOf('Cron'))
  @AuthEvent('crons:search', 'search')
  @Post('runs/crons/search')
  @HttpCode(200)
  search(@Body() body: SearchCronsDto): Promise<Partial<Cron & { now: string }>[]> {
    return this.crons.search(body);
  }

  @Returns('Count')
  @AuthEvent('crons:search', 'count')
  @Post('runs/crons/count')
  @HttpCode(200)
  count(@Body() body: CountCronsDto): Promise<number> {
    return this.crons.count(body);
  }

  @Returns('Cron')
  @AuthEvent('crons:update')
  @Patch('runs/crons/:cronId')
  update(@Param('cronId', IdPipe) cronId: string, @Body() body: UpdateCronDto): Promise<Cron> {
    return this.commands.execute(new UpdateCron(cronId, body, now()));
  }

  @ReturnsNothing()
  @AuthEvent('crons:delete')
  @Delete('runs/crons/:cronId')
  @HttpCode(204)
  async delete(@Param('cronId', IdPipe) cronId: string): Promise<void> {
    await this.commands.execute(new DeleteCron(cronId, now()));
  }
}
