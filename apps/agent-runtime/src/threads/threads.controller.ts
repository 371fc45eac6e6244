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
} from '@nestjs/common';
import { uuidv7, type JsonObject } from '#libs/event-store';
import { ThreadStateService } from './thread-state.service.js';
import {
  CreateThreadDto,
  HistoryDto,
  HistoryQueryDto,
  PatchThreadStateDto,
  SearchThreadsDto,
  StateAtCheckpointDto,
  StateQueryDto,
  UpdateThreadDto,
  UpdateThreadStateDto,
  ttlOf,
} from './threads.dto.js';
import { ThreadStateUpdates } from './thread-state-updates.service.js';
import { ThreadsService } from './threads.service.js';
import { IdPipe } from '../common/id.pipe.js';

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
    @Inject(ThreadStateUpdates) private readonly updates: ThreadStateUpdates,
  ) {}

  @Returns('Thread')
  @AuthEvent('threads:create')
  @Post()
  @HttpCode(200)
  async create(@Body() body: CreateThreadDto): Promise<Record<string, unknown>> {
    const threadId = body.thread_id ?? uuidv7();
    const metadata = {
      ...(body.metadata ?? {}),
      ...(body.graph_id === undefined ? {} : { graph_id: body.graph_id }),
    };
    if (!body.supersteps?.length) {
      return this.threads.create(threadId, metadata, body.if_exists ?? 'raise', now(), ttlOf(body));
    }
    this.updates.graphOf({ thread_id: threadId, metadata });
    await this.threads.create(threadId, metadata, 'raise', now(), ttlOf(body));
    try {
      await this.updates.applySupersteps(await this.threads.row(threadId), body.supersteps, now());
    } catch (error) {
      await this.threads.delete(threadId, now());
      throw error;
    }
    return this.threads.get(threadId);
  }

  @Returns(listOf('Thread'))
  @AuthEvent('threads:search', 'search')
  @Post('search')
  @HttpCode(200)
  search(@Body() body: SearchThreadsDto): Promise<Record<string, unknown>[]> {
    return this.threads.search(body);
  }

  @Returns('Count')
  @AuthEvent('threads:search', 'count')
  @Post('count')
  @HttpCode(200)
  count(@Body() body: SearchThreadsDto): Promise<number> {
    return this.threads.count(body);
  }

  @Returns('Thread')
  @AuthEvent('threads:read')
  @Post(':threadId/copy')
  @HttpCode(200)
  copy(@Param('threadId', IdPipe) threadId: string): Promise<Record<string, unknown>> {
    return this.threads.copy(threadId, uuidv7(), now());
  }

  @Returns('Thread')
  @AuthEvent('threads:read')
  @Get(':threadId')
  get(@Param('threadId', IdPipe) threadId: string): Promise<Record<string, unknown>> {
    return this.threads.get(threadId);
  }

  @Returns('Thread')
  @AuthEvent('threads:update')
  @Patch(':threadId')
  update(
    @Param('threadId', IdPipe) threadId: string,
    @Body() body: UpdateThreadDto,
  ): Promise<Record<string, unknown>> {
    return this.threads.updateMetadata(threadId, body.metadata ?? {}, now(), ttlOf(body));
  }

  @ReturnsNothing()
  @AuthEvent('threads:delete')
  @Delete(':threadId')
  @HttpCode(204)
  async delete(@Param('threadId', IdPipe) threadId: string): Promise<void> {
    await this.threads.remove(threadId, now());
  }

  @Returns('ThreadState')
  @AuthEvent('threads:read')
  @Get(':threadId/state')
  async latestState(
    @Param('threadId', IdPipe) threadId: string,
    @Query() query: StateQueryDto,
  ): Promise<unknown> {
    return this.state.state(await this.threads.row(threadId), undefined, query.subgraphs ?? false);
  }

  @Returns('StateUpdated')
  @AuthEvent('threads:update')
  @Post(':threadId/state')
  @HttpCode(200)
  async updateState(
    @Param('threadId', IdPipe) threadId: string,
    @Body() body: UpdateThreadStateDto,
  ): Promise<Record<string, unknown>> {
    return this.updates.update(
      await this.threads.rowForWrite(threadId),
      {
        values: body.values,
        asNode: body.as_node,
        checkpoint: body.checkpoint,
        checkpointId: body.checkpoint_id,
      },
      now(),
    );
  }

  @ReturnsNothing()
  @AuthEvent('threads:update')
  @Patch(':threadId/state')
  @HttpCode(204)
  async patchState(
    @Param('threadId', IdPipe) threadId: string,
    @Body() body: PatchThreadStateDto,
  ): Promise<void> {
    await this.updates.patchMetadata(await this.threads.row(threadId), body.metadata);
  }

  @Returns('ThreadState')
  @AuthEvent('threads:read')
  @Post(':threadId/state/checkpoint')
  @HttpCode(200)
  async stateAtCheckpoint(
    @Param('threadId', IdPipe) threadId: string,
    @Body() body: StateAtCheckpointDto,
  ): Promise<unknown> {
    const checkpointId = body.checkpoint?.checkpoint_id;
    return this.state.state(
      await this.threads.row(threadId),
      typeof checkpointId === 'string' ? checkpointId : undefined,
      body.subgraphs ?? false,
    );
  }

  @Returns('ThreadState')
  @AuthEvent('threads:read')
  @Get(':threadId/state/:checkpointId')
  async stateAt(
    @Param('threadId', IdPipe) threadId: string,
    @Param('checkpointId') checkpointId: string,
    @Query() query: StateQueryDto,
  ): Promise<unknown> {
    return this.state.state(
      await this.threads.row(threadId),
      checkpointId,
      query.subgraphs ?? false,
    );
  }

  @Returns(listOf('ThreadState'))
  @AuthEvent('threads:read')
  @Get(':threadId/history')
  async history(
    @Param('threadId', IdPipe) threadId: string,
    @Query() query: HistoryQueryDto,
  ): Promise<unknown[]> {
    return this.state.history(await this.threads.row(threadId), {
      limit: query.limit ?? 10,
      before: query.before ? { configurable: { checkpoint_id: query.before } } : undefined,
    });
  }

  @Returns(listOf('ThreadState'))
  @AuthEvent('threads:read')
  @Post(':threadId/history')
  @HttpCode(200)
  async historyPost(
    @Param('threadId', IdPipe) threadId: string,
    @Body() body: HistoryDto,
  ): Promise<unknown[]> {
    return this.state.history(await this.threads.row(threadId), {
      limit: body.limit ?? 10,
      before: beforeConfig(body.before),
      filter: body.metadata,
      checkpoint: body.checkpoint,
    });
  }
}
