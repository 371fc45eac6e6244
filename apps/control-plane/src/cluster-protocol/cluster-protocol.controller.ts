import { Returns } from '#libs/http';
import {
  Body,
  Controller,
  Get,
  HttpCode,
  Inject,
  Param,
  ParseUUIDPipe,
  Post,
  Query,
  Req,
} from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyRequest } from 'fastify';
import type { ListenerAssignments } from '#libs/listener-protocol';
import { CurrentCaller } from '../tenancy/caller.js';
import type { Caller } from '../tenancy/tenant-directory.js';
import { AssignmentsQueryDto } from './assignments/assignments-query.dto.js';
import { ClusterAssignments } from './assignments/cluster-assignments.service.js';
import {
  ReportProgress,
  type ReportedProgress,
} from './report-progress/report-progress.command.js';
import { ReportProgressDto } from './report-progress/report-progress.dto.js';

const id = new ParseUUIDPipe();

/** Aborted when the client goes away: a waiting poll stops waiting. */
function closedSignal(request: FastifyRequest): AbortSignal {
  const closed = new AbortController();
  request.raw.once('close', () => {
    closed.abort();
  });
  return closed.signal;
}

/** What a cluster listener asks of the control plane, and tells it. */
@Controller('v2/listeners')
export class ClusterProtocolController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(ClusterAssignments) private readonly assignments: ClusterAssignments,
  ) {}

  /** A cluster listener's long poll for what it is to do (see docs/kubernetes.md). */
  @Returns('ListenerAssignments')
  @Get(':listener_id/assignments')
  poll(
    @CurrentCaller() caller: Caller,
    @Param('listener_id', id) listenerId: string,
    @Query() query: AssignmentsQueryDto,
    @Req() request: FastifyRequest,
  ): Promise<ListenerAssignments> {
    return this.assignments.poll(caller, listenerId, {
      after: query.after,
      waitSeconds: query.wait ?? 0,
      signal: closedSignal(request),
    });
  }

  /** A cluster listener reports how a revision, or a tear-down, went. */
  @Returns('ListenerReport')
  @Post(':listener_id/reports')
  @HttpCode(200)
  report(
    @CurrentCaller() caller: Caller,
    @Param('listener_id', id) listenerId: string,
    @Body() body: ReportProgressDto,
  ): Promise<ReportedProgress> {
    return this.commands.execute(new ReportProgress(caller, listenerId, body));
  }
}
