import { CommandBus } from '@nestjs/cqrs';
import { Returns, ReturnsNothing, StreamsEvents, listOf } from '#libs/http';
import { ApiBody, ApiResponse } from '@nestjs/swagger';
import { AuthEvent, RefusedInStream } from '../auth/auth-event.decorator.js';
import type { RunCaller } from '../auth/run-caller.js';
import { RunCallerOf } from '../auth/run-caller.decorator.js';
import {
  Body,
  Controller,
  Delete,
  Get,
  Headers,
  HttpCode,
  Inject,
  Param,
  Post,
  Query,
  Res,
} from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { EventStore } from '#libs/event-store';
import { HttpDrain, sendSse, type SseEnd } from '#libs/http';
import { validateEach, ValidationFailedError } from '#libs/http';
import {
  readRunStream,
  type StreamRecord,
  type StreamStart,
} from '../run-records/run-stream-reader.js';
import { readCreatedRunStream } from './created-run-stream.js';
import { onlyModes } from './stream-mode-filter.js';
import {
  CancelActionDto,
  JoinStreamQueryDto,
  ListRunsDto,
  ThreadStreamQueryDto,
} from './runs.dto.js';
import { CancelRun } from './cancel-run/cancel-run.command.js';
import { CancelRunDto } from './cancel-run/cancel-run.dto.js';
import { CancelRuns } from './cancel-runs/cancel-runs.command.js';
import { CancelManyRunsDto } from './cancel-runs/cancel-runs.dto.js';
import { CreateRunBatch } from './create-run-batch/create-run-batch.command.js';
import { CreateRun } from './create-run/create-run.command.js';
import { CreateRunDto } from './create-run/create-run.dto.js';
import { DeleteRun } from './delete-run/delete-run.command.js';
import type { CreatedRun } from './run-commands.js';
import { parseThreadEventId, readThreadStream } from '../threads/thread-stream-reader.js';
import { RunsService } from './runs.service.js';
import { RunWaits } from './run-waits.js';
import { runPath, type Run } from './run.resource.js';
import { parseLastEventId } from './last-event-id.js';
import { IdPipe } from '../common/id.pipe.js';

const HEARTBEAT_MS = 10_000;
const now = (): string => new Date().toISOString();

@Controller()
export class RunsController {
  constructor(
    @Inject(RunsService) private readonly runs: RunsService,
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(EventStore) private readonly store: EventStore,
    @Inject(RunWaits) private readonly waits: RunWaits,
    @Inject(HttpDrain) private readonly drain: HttpDrain,
  ) {}

  @Returns('Run')
  @AuthEvent('threads:create_run')
  @Post('threads/:threadId/runs')
  @HttpCode(200)
  async create(
    @Param('threadId', IdPipe) threadId: string,
    @Body() body: CreateRunDto,
    @RunCallerOf() caller: RunCaller | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Run> {
    const run = await this.commands.execute(new CreateRun(threadId, body, now(), caller));
    void reply.header('content-location', runPath(run.data));
    return run.resource;
  }

  @Returns('Run')
  @AuthEvent('threads:create_run')
  @Post('runs')
  @HttpCode(200)
  async createStateless(
    @Body() body: CreateRunDto,
    @RunCallerOf() caller: RunCaller | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Run> {
    const run = await this.commands.execute(new CreateRun(null, body, now(), caller));
    void reply.header('content-location', runPath(run.data));
    return run.resource;
  }

  @Returns(listOf('Run'))
  @AuthEvent('threads:read')
  @Get('threads/:threadId/runs')
  list(
    @Param('threadId', IdPipe) threadId: string,
    @Query() query: ListRunsDto,
  ): Promise<Partial<Run>[]> {
    return this.runs.list(threadId, query);
  }

  @Returns('Run')
  @AuthEvent('threads:read')
  @Get('threads/:threadId/runs/:runId')
  get(
    @Param('threadId', IdPipe) threadId: string,
    @Param('runId', IdPipe) runId: string,
  ): Promise<Run> {
    return this.runs.get(threadId, runId);
  }

  @Returns('RunResult')
  @AuthEvent('threads:read')
  @Get('threads/:threadId/runs/:runId/join')
  async join(
    @Param('threadId', IdPipe) threadId: string,
    @Param('runId', IdPipe) runId: string,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    await this.runs.requireRunOfThread(threadId, runId);
    const path = `/threads/${threadId}/runs/${runId}`;
    await this.waits.answer(reply, { headers: {}, followAt: `${path}/join` }, (signal) =>
      this.runs.resultOf(runId, { signal }),
    );
  }

  @Returns('RunResult')
  @AuthEvent('threads:create_run')
  @Post('threads/:threadId/runs/wait')
  @HttpCode(200)
  async wait(
    @Param('threadId', IdPipe) threadId: string,
    @Body() body: CreateRunDto,
    @RunCallerOf() caller: RunCaller | undefined,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const run = await this.commands.execute(new CreateRun(threadId, body, now(), caller));
    await this.answerWhenFinished(reply, run.data);
  }

  @Returns('RunResult')
  @AuthEvent('threads:create_run')
  @Post('runs/wait')
  @HttpCode(200)
  async waitStateless(
    @Body() body: CreateRunDto,
    @RunCallerOf() caller: RunCaller | undefined,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const run = await this.commands.execute(new CreateRun(null, body, now(), caller));
    await this.answerWhenFinished(reply, run.data);
  }

  @ApiResponse({
    status: 202,
    description: 'Cancel asked; with wait=true, 204 once the run has ended',
  })
  @AuthEvent('threads:update')
  @Post('threads/:threadId/runs/:runId/cancel')
  async cancel(
    @Param('threadId', IdPipe) threadId: string,
    @Param('runId', IdPipe) runId: string,
    @Query() query: CancelRunDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<void> {
    await this.commands.execute(
      new CancelRun(threadId, runId, query.action ?? 'interrupt', now(), query.wait),
    );
    void reply.status(query.wait ? 204 : 202);
  }

  @ReturnsNothing()
  @AuthEvent('threads:delete')
  @Delete('threads/:threadId/runs/:runId')
  @HttpCode(204)
  async delete(
    @Param('threadId', IdPipe) threadId: string,
    @Param('runId', IdPipe) runId: string,
  ): Promise<void> {
    await this.commands.execute(new DeleteRun(threadId, runId, now()));
  }

  @ReturnsNothing()
  @AuthEvent('threads:update')
  @Post('runs/cancel')
  @HttpCode(204)
  async cancelMany(
    @Body() body: CancelManyRunsDto,
    @Query() query: CancelActionDto,
  ): Promise<void> {
    if (!body.thread_id && !body.run_ids && !body.status) {
      throw new ValidationFailedError([
        { loc: ['body'], msg: 'name thread_id, run_ids or status', type: 'missing' },
      ]);
    }
    await this.commands.execute(
      new CancelRuns(
        { threadId: body.thread_id, runIds: body.run_ids, status: body.status },
        query.action ?? 'interrupt',
        now(),
      ),
    );
  }

  @Returns(listOf('Run'))
  @ApiBody({ schema: listOf('CreateRunDto') })
  @AuthEvent('threads:create_run')
  @Post('runs/batch')
  @HttpCode(200)
  async batch(@Body() body: unknown, @RunCallerOf() caller: RunCaller | undefined): Promise<Run[]> {
    return this.commands.execute(
      new CreateRunBatch(await validateEach(body, CreateRunDto), now(), caller),
    );
  }

  @StreamsEvents()
  @AuthEvent('threads:create_run')
  @Post('threads/:threadId/runs/stream')
  async stream(
    @Param('threadId', IdPipe) threadId: string,
    @Body() body: CreateRunDto,
    @RunCallerOf() caller: RunCaller | undefined,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const run = await this.commands.execute(new CreateRun(threadId, body, now(), caller));
    await this.streamRun(reply, run.data, body.on_disconnect === 'cancel');
  }

  @StreamsEvents()
  @AuthEvent('threads:create_run')
  @Post('runs/stream')
  async streamStateless(
    @Body() body: CreateRunDto,
    @RunCallerOf() caller: RunCaller | undefined,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const run = await this.commands.execute(new CreateRun(null, body, now(), caller));
    await this.streamRun(reply, run.data, body.on_disconnect === 'cancel');
  }

  @StreamsEvents()
  @AuthEvent('threads:read')
  @RefusedInStream()
  @Get('threads/:threadId/runs/:runId/stream')
  async joinStream(
    @Param('threadId', IdPipe) threadId: string,
    @Param('runId', IdPipe) runId: string,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Query() query: JoinStreamQueryDto,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const start = parseLastEventId(lastEventId);
    await this.runs.requireRunOfThread(threadId, runId);
    await this.joinRun(reply, threadId, runId, start, query);
  }

  /** Every run of a thread as it streams, from now or after the Last-Event-ID it sent. */
  @StreamsEvents()
  @AuthEvent('threads:read')
  @RefusedInStream()
  @Get('threads/:threadId/stream')
  async joinThreadStream(
    @Param('threadId', IdPipe) threadId: string,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Query() query: ThreadStreamQueryDto,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const after = parseThreadEventId(lastEventId);
    const runIds = await this.runs.runIdsOfThread(threadId);
    const disconnect = new AbortController();
    const modes = [...(query.stream_mode ?? []), ...(query.stream_modes ?? [])];
    const records = readThreadStream(
      this.store,
      threadId,
      runIds,
      { after, modes },
      disconnect.signal,
    );
    await sendSse(reply, records, {
      headers: { 'content-location': `/threads/${threadId}` },
      heartbeatMs: HEARTBEAT_MS,
      disconnect,
      drain: { drain: this.drain, resumeAt: `/threads/${threadId}/stream` },
    });
  }

  /** A run joined by its id alone, as the SDK does for stateless runs. */
  @StreamsEvents()
  @AuthEvent('threads:read')
  @RefusedInStream()
  @Get('runs/:runId/stream')
  async joinStatelessStream(
    @Param('runId', IdPipe) runId: string,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Query() query: JoinStreamQueryDto,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const start = parseLastEventId(lastEventId);
    const threadId = await this.runs.threadOfRun(runId);
    await this.joinRun(reply, threadId, runId, start, query);
  }

  private async joinRun(
    reply: FastifyReply,
    threadId: string,
    runId: string,
    start: StreamStart,
    query: JoinStreamQueryDto,
  ): Promise<void> {
    const path = `/threads/${threadId}/runs/${runId}`;
    const end = await this.sse(
      reply,
      { 'content-location': path, location: `${path}/stream` },
      (signal) => onlyModes(readRunStream(this.store, runId, start, signal), query.stream_mode),
    );
    const cancelOnDisconnect =
      query.cancel_on_disconnect === '1' || query.cancel_on_disconnect === 'true';
    // Not when the server's stop ended the stream: the run goes back to the queue, for the client to follow again.
    if (cancelOnDisconnect && end === 'client-left') {
      // A run that finished meanwhile has nothing to cancel: the client left after its end.
      await this.commands
        .execute(new CancelRun(threadId, runId, 'interrupt', now()))
        .catch(() => undefined);
    }
  }

  /** What a run this request created ends with, however long it takes (`runs/wait`). */
  private async answerWhenFinished(reply: FastifyReply, run: CreatedRun['data']): Promise<void> {
    const path = runPath(run);
    await this.waits.answer(
      reply,
      {
        headers: { 'content-location': path },
        followAt: run.kwargs.temporary ? `${path}/stream` : `${path}/join`,
      },
      (signal) => this.runs.resultOf(run.run_id, { justCreated: true, signal }),
    );
  }

  /** A run this request created, streamed from its start. */
  private async streamRun(
    reply: FastifyReply,
    run: CreatedRun['data'],
    cancelOnDisconnect: boolean,
  ): Promise<void> {
    const path = runPath(run);
    const headers: Record<string, string> = { 'content-location': path };
    if (!run.kwargs.temporary) headers.location = `${path}/stream`;
    const end = await this.sse(reply, headers, (signal) =>
      readCreatedRunStream(this.store, run.run_id, signal),
    );
    if (cancelOnDisconnect && end === 'client-left' && !run.kwargs.temporary) {
      await this.commands.execute(new CancelRun(run.thread_id, run.run_id, 'interrupt', now()));
    }
  }

  /** A run's stream; the server's stop ends it with where to resume: its join (`Location`). */
  private sse(
    reply: FastifyReply,
    headers: Record<string, string>,
    read: (signal: AbortSignal) => AsyncIterable<StreamRecord>,
  ): Promise<SseEnd> {
    const disconnect = new AbortController();
    const resumeAt = `${headers['content-location'] ?? ''}/stream`;
    return sendSse(reply, read(disconnect.signal), {
      headers,
      heartbeatMs: HEARTBEAT_MS,
      disconnect,
      drain: { drain: this.drain, resumeAt, fromStart: '-1' },
    });
  }
}
