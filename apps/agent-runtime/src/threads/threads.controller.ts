import { Returns, ReturnsNothing, listOf } from '#libs/http';
import { AuthEvent } from '../auth/auth-event.decorator.js';
import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  Patch,
  Post,
  Query,
  Req,
} from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { JsonObject } from '#libs/event-store';
import { CommandBus } from '@nestjs/cqrs';
import { ThreadStateService } from './thread-state.service.js';
import {
  HistoryDto,
  HistoryQueryDto,
  SearchThreadsDto,
  StateAtCheckpointDto,
  StateQueryDto,
} from './threads.dto.js';
import type { StateUpdated } from './thread-state-updates.service.js';
import { ThreadCopyAdmission } from './thread-copy-admission.js';
import { CopyThread } from './copy-thread/copy-thread.command.js';
import { CreateThread } from './create-thread/create-thread.command.js';
import { CreateThreadDto } from './create-thread/create-thread.dto.js';
import { DeleteThread } from './delete-thread/delete-thread.command.js';
import { PatchThreadState } from './patch-thread-state/patch-thread-state.command.js';
import { PatchThreadStateDto } from './patch-thread-state/patch-thread-state.dto.js';
import { PruneThreads } from './prune-threads/prune-threads.command.js';
import { PruneThreadsDto } from './prune-threads/prune-threads.dto.js';
import { UpdateThreadState } from './update-thread-state/update-thread-state.command.js';
import { UpdateThreadStateDto } from './update-thread-state/update-thread-state.dto.js';
import { UpdateThread } from './update-thread/update-thread.command.js';
import { UpdateThreadDto } from './update-thread/update-thread.dto.js';
import type { Thread } from './thread.resource.js';
import type { ThreadStateResource } from './thread-state.resource.js';
import { ThreadsService } from './threads.service.js';
import { ThreadStorageService } from './thread-storage.service.js';
import type { ThreadStorage } from './thread-storage.js';
import { IdPipe } from '../common/id.pipe.js';
import { checkpointAddress } from './checkpoint-address.js';

const now = (): string => new Date().toISOString();

/** `before` as a checkpoint id, a config with `configurable`, or the checkpoint's fields. */
function beforeConfig(before: HistoryDto['before']): JsonObject | undefined {
  if (before === undefined) return undefined;
  if (typeof before === 'string') return { configurable: { checkpoint_id: before } };
  return 'configurable' in before ? before : { configurable: before };
}

@Controller('threads')
export class ThreadsController {
  constructor(
    @Inject(ThreadsService) private readonly threads: ThreadsService,
    @Inject(ThreadStateService) private readonly state: ThreadStateService,
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(ThreadCopyAdmission) private readonly copies: ThreadCopyAdmission,
    @Inject(ThreadStorageService) private readonly storageOf: ThreadStorageService,
  ) {}

  @Returns('Thread')
  @AuthEvent('threads:create')
  @Post()
  @HttpCode(200)
  create(@Body() body: CreateThreadDto): Promise<Thread> {
    return this.commands.execute(new CreateThread(body, now()));
  }

  @Returns(listOf('Thread'))
  @AuthEvent('threads:search', 'search')
  @Post('search')
  @HttpCode(200)
  search(@Body() body: SearchThreadsDto): Promise<Partial<Thread>[]> {
    return this.threads.search(body);
  }

  /** Deletes the threads named (those that exist), as `DELETE /threads/{id}` does each. */
  @AuthEvent('threads:delete')
  @Post('prune')
  @HttpCode(200)
  prune(@Body() body: PruneThreadsDto): Promise<{ pruned_count: number }> {
    return this.commands.execute(new PruneThreads(body.thread_ids, now()));
  }

  @Returns('Count')
  @AuthEvent('threads:search', 'count')
  @Post('count')
  @HttpCode(200)
  count(@Body() body: SearchThreadsDto): Promise<number> {
    return this.threads.count(body);
  }

  /** Asks both `threads:read` (the source) and `threads:create` (the copy): see the admission. */
  @Returns('Thread')
  @Post(':threadId/copy')
  @HttpCode(200)
  async copy(
    @Param('threadId', IdPipe) threadId: string,
    @Req() request: FastifyRequest,
  ): Promise<Thread> {
    const admitted = await this.copies.admit(request.berthAuth, threadId);
    return this.commands.execute(new CopyThread(threadId, now(), admitted));
  }

  @Returns('Thread')
  @AuthEvent('threads:read')
  @Get(':threadId')
  get(@Param('threadId', IdPipe) threadId: string): Promise<Thread> {
    return this.threads.get(threadId);
  }

  @Returns('Thread')
  @AuthEvent('threads:update')
  @Patch(':threadId')
  update(
    @Param('threadId', IdPipe) threadId: string,
    @Body() body: UpdateThreadDto,
  ): Promise<Thread> {
    return this.commands.execute(new UpdateThread(threadId, body, now()));
  }

  @ReturnsNothing()
  @AuthEvent('threads:delete')
  @Delete(':threadId')
  @HttpCode(204)
  async delete(@Param('threadId', IdPipe) threadId: string): Promise<void> {
    await this.commands.execute(new DeleteThread(threadId, now()));
  }

  @Returns('ThreadStorage')
  @AuthEvent('threads:read')
  @Get(':threadId/storage')
  storage(@Param('threadId', IdPipe) threadId: string): Promise<ThreadStorage> {
    return this.storageOf.storage(threadId);
  }

  @Returns('ThreadState')
  @AuthEvent('threads:read')
  @Get(':threadId/state')
  latestState(
    @Param('threadId', IdPipe) threadId: string,
    @Query() query: StateQueryDto,
  ): Promise<ThreadStateResource> {
    return this.state.state(threadId, undefined, query.subgraphs ?? false);
  }

  @Returns('StateUpdated')
  @AuthEvent('threads:update')
  @Post(':threadId/state')
  @HttpCode(200)
  updateState(
    @Param('threadId', IdPipe) threadId: string,
    @Body() body: UpdateThreadStateDto,
  ): Promise<StateUpdated> {
    return this.commands.execute(new UpdateThreadState(threadId, body, now()));
  }

  @ReturnsNothing()
  @AuthEvent('threads:update')
  @Patch(':threadId/state')
  @HttpCode(204)
  async patchState(
    @Param('threadId', IdPipe) threadId: string,
    @Body() body: PatchThreadStateDto,
  ): Promise<void> {
    await this.commands.execute(new PatchThreadState(threadId, body.metadata));
  }

  @Returns('ThreadState')
  @AuthEvent('threads:read')
  @Post(':threadId/state/checkpoint')
  @HttpCode(200)
  stateAtCheckpoint(
    @Param('threadId', IdPipe) threadId: string,
    @Body() body: StateAtCheckpointDto,
  ): Promise<ThreadStateResource> {
    return this.state.state(threadId, checkpointAddress(body.checkpoint), body.subgraphs ?? false);
  }

  @Returns('ThreadState')
  @AuthEvent('threads:read')
  @Get(':threadId/state/:checkpointId')
  stateAt(
    @Param('threadId', IdPipe) threadId: string,
    @Param('checkpointId') checkpointId: string,
    @Query() query: StateQueryDto,
  ): Promise<ThreadStateResource> {
    return this.state.state(threadId, { checkpoint_id: checkpointId }, query.subgraphs ?? false);
  }

  @Returns(listOf('ThreadState'))
  @AuthEvent('threads:read')
  @Get(':threadId/history')
  history(
    @Param('threadId', IdPipe) threadId: string,
    @Query() query: HistoryQueryDto,
  ): Promise<ThreadStateResource[]> {
    return this.state.history(threadId, {
      limit: query.limit ?? 10,
      before: query.before ? { configurable: { checkpoint_id: query.before } } : undefined,
    });
  }

  @Returns(listOf('ThreadState'))
  @AuthEvent('threads:read')
  @Post(':threadId/history')
  @HttpCode(200)
  historyPost(
    @Param('threadId', IdPipe) threadId: string,
    @Body() body: HistoryDto,
  ): Promise<ThreadStateResource[]> {
    return this.state.history(threadId, {
      limit: body.limit ?? 10,
      before: beforeConfig(body.before ?? undefined),
      filter: body.metadata ?? undefined,
      checkpoint: checkpointAddress(body.checkpoint),
    });
  }
}
