import { Returns } from '#libs/http';
import {
  Body,
  Controller,
  Get,
  Headers,
  HttpCode,
  Param,
  ParseUUIDPipe,
  Post,
  Query,
  Inject,
} from '@nestjs/common';
import { PageQueryDto } from '../deployments/deployments.dto.js';
import type { Page } from '../deployments/deployment-queries.service.js';
import { CurrentCaller } from '../tenancy/caller.js';
import type { Caller } from '../tenancy/tenant-directory.js';
import { TracedRunsDto } from './tracing.dto.js';
import { TracingService, type TracedRun, type TracingProject } from './tracing.service.js';

export const TRACING_INGEST_PATH = /^\/v1\/tracing-projects\/[^/]+\/runs$/;

@Controller('v1/tracing-projects')
export class TracingController {
  constructor(@Inject(TracingService) private readonly tracing: TracingService) {}

  @Returns('TracingProjectPage')
  @Get()
  list(
    @CurrentCaller() caller: Caller,
    @Query() query: PageQueryDto,
  ): Promise<Page<TracingProject>> {
    return this.tracing.list(caller.tenant_id, query);
  }

  @Returns('TracedRunPage')
  @Get(':project_id/runs')
  runs(
    @CurrentCaller() caller: Caller,
    @Param('project_id', new ParseUUIDPipe()) projectId: string,
    @Query() query: PageQueryDto,
  ): Promise<Page<TracedRun>> {
    return this.tracing.runs(caller.tenant_id, projectId, query);
  }

  /** Where a deployment's runtime records its runs; it authenticates with its project's token. */
  @Returns('TracesRecorded', 202)
  @Post(':project_id/runs')
  @HttpCode(202)
  record(
    @Param('project_id', new ParseUUIDPipe()) projectId: string,
    @Headers('authorization') authorization: string | undefined,
    @Body() body: TracedRunsDto,
  ): Promise<{ recorded: number }> {
    return this.tracing.recordReported(projectId, authorization, body);
  }
}
