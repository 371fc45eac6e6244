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
} from '@nestjs/common';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsISO8601,
  IsOptional,
  IsString,
  IsUUID,
  ValidateNested,
} from 'class-validator';
import { DomainError } from '#libs/domain';
import { PageQueryDto } from '../deployments/deployments.dto.js';
import { CurrentCaller } from '../tenancy/caller.js';
import type { Caller } from '../tenancy/tenant-directory.js';
import { TracingService, TracingTokens, type TracedRun } from './tracing.service.js';

export class TracedRunDto {
  @IsUUID()
  run_id!: string;

  @IsOptional()
  @IsUUID()
  thread_id!: string | null;

  @IsOptional()
  @IsString()
  assistant_id!: string | null;

  @IsIn(['pending', 'running', 'success', 'error', 'timeout', 'interrupted'])
  status!: string;

  @IsOptional()
  @IsInt()
  attempt!: number | null;

  @IsISO8601()
  created_at!: string;

  @IsOptional()
  @IsISO8601()
  started_at!: string | null;

  @IsOptional()
  @IsISO8601()
  finished_at!: string | null;
}

export class TracedRunsDto {
  @IsArray()
  @ArrayMaxSize(1000)
  @ValidateNested({ each: true })
  @Type(() => TracedRunDto)
  runs!: TracedRunDto[];
}

export const TRACING_INGEST_PATH = /^\/v1\/tracing-projects\/[^/]+\/runs$/;

@Controller('v1/tracing-projects')
export class TracingController {
  constructor(
    private readonly tracing: TracingService,
    private readonly tokens: TracingTokens,
  ) {}

  @Returns('TracingProjectPage')
  @Get()
  async list(
    @CurrentCaller() caller: Caller,
    @Query() query: PageQueryDto,
  ): Promise<{ resources: object[]; offset: number }> {
    const offset = query.offset ?? 0;
    const resources = await this.tracing.list(caller.tenant_id, query.limit ?? 20, offset);
    return { resources, offset: offset + resources.length };
  }

  @Returns('TracedRunPage')
  @Get(':project_id/runs')
  async runs(
    @CurrentCaller() caller: Caller,
    @Param('project_id', new ParseUUIDPipe()) projectId: string,
    @Query() query: PageQueryDto,
  ): Promise<{ resources: TracedRun[]; offset: number }> {
    const offset = query.offset ?? 0;
    const resources = await this.tracing.runs(
      caller.tenant_id,
      projectId,
      query.limit ?? 20,
      offset,
    );
    return { resources, offset: offset + resources.length };
  }

  /** Where a deployment's runtime records its runs; it authenticates with its project's token. */
  @Returns('TracesRecorded', 202)
  @Post(':project_id/runs')
  @HttpCode(202)
  async record(
    @Param('project_id', new ParseUUIDPipe()) projectId: string,
    @Headers('authorization') authorization: string | undefined,
    @Body() body: TracedRunsDto,
  ): Promise<{ recorded: number }> {
    const token = /^Bearer\s+([0-9a-f]+)$/i.exec(authorization ?? '')?.[1];
    if (!token || !this.tokens.accepts(projectId, token)) {
      throw new DomainError('unauthorized', 'Invalid tracing token for this project');
    }
    const runs = body.runs.map((run) => ({
      run_id: run.run_id,
      thread_id: run.thread_id ?? null,
      assistant_id: run.assistant_id ?? null,
      status: run.status,
      attempt: run.attempt ?? null,
      created_at: run.created_at,
      started_at: run.started_at ?? null,
      finished_at: run.finished_at ?? null,
    }));
    return { recorded: await this.tracing.record(projectId, runs) };
  }
}
