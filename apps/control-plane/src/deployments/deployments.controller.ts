import { Returns, ReturnsNothing, ReturnsOrStreams } from '#libs/http';
import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  ParseUUIDPipe,
  Patch,
  Post,
  Query,
  Req,
  Res,
  UseInterceptors,
} from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { IsIn, IsOptional } from 'class-validator';
import { Transform } from 'class-transformer';
import { sendSse } from '#libs/http';
import type { ControlPlaneConfig } from '../control-plane.config.js';
import { CONTROL_PLANE_CONFIG } from '../control-plane.tokens.js';
import { LOG_TYPES, type LogType } from '../logs/revision-log.js';
import type { FollowedLogItem } from './deployment-log-follower.js';
import { DeploymentLogs } from './deployment-logs.service.js';
import { CurrentCaller } from '../tenancy/caller.js';
import type { Caller } from '../tenancy/tenant-directory.js';
import type { IssuedUpload } from '../uploads/upload-store.js';
import {
  DeploymentHistory,
  type DeploymentHistoryAnswer,
} from './read-model/deployment-history.js';
import { CommandBus } from '@nestjs/cqrs';
import { ListDeploymentsQueryDto, ListRevisionsQueryDto } from './deployments.dto.js';
import { CreateDeployment } from './create-deployment/create-deployment.command.js';
import { CreateDeploymentDto } from './create-deployment/create-deployment.dto.js';
import { DeleteDeployment } from './delete-deployment/delete-deployment.command.js';
import { IssueUpload } from './issue-upload/issue-upload.command.js';
import { PatchDeployment } from './patch-deployment/patch-deployment.command.js';
import { PatchDeploymentDto } from './patch-deployment/patch-deployment.dto.js';
import { RedeployRevision } from './redeploy-revision/redeploy-revision.command.js';
import type { DeploymentResource, RevisionResource } from './read-model/deployment.resource.js';
import { DeploymentQueries, type Page } from './deployment-queries.service.js';
import { ProductAliasesInterceptor } from '../product-aliases/product-aliases.interceptor.js';
import { MisplacedFieldsInterceptor } from './misplaced-fields.js';

export class LogsQueryDto {
  @IsOptional()
  @IsIn(LOG_TYPES)
  type?: LogType;

  @IsOptional()
  @Transform(({ value }) => value === true || value === 'true' || value === '1')
  follow?: boolean;
}

const id = new ParseUUIDPipe();

/** The base URL clients reached this server at, for the upload URLs it hands out. */
export function baseUrlOf(request: FastifyRequest, configured: string | undefined): string {
  return configured ?? `${request.protocol}://${request.headers.host ?? request.hostname}`;
}

@Controller()
export class DeploymentsController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(DeploymentQueries) private readonly queries: DeploymentQueries,
    @Inject(DeploymentHistory) private readonly history: DeploymentHistory,
    @Inject(DeploymentLogs) private readonly logs: DeploymentLogs,
    @Inject(CONTROL_PLANE_CONFIG) private readonly config: ControlPlaneConfig,
  ) {}

  @Returns('Deployment', 201)
  @Post('v2/deployments')
  @HttpCode(201)
  @UseInterceptors(ProductAliasesInterceptor, new MisplacedFieldsInterceptor('create'))
  create(
    @CurrentCaller() caller: Caller,
    @Body() body: CreateDeploymentDto,
  ): Promise<DeploymentResource> {
    return this.commands.execute(new CreateDeployment(caller, body));
  }

  @Returns('DeploymentPage')
  @Get('v2/deployments')
  list(
    @CurrentCaller() caller: Caller,
    @Query() query: ListDeploymentsQueryDto,
  ): Promise<Page<DeploymentResource>> {
    return this.queries.list(caller, query);
  }

  @Returns('Deployment')
  @Get('v2/deployments/:deployment_id')
  get(
    @CurrentCaller() caller: Caller,
    @Param('deployment_id', id) deploymentId: string,
  ): Promise<DeploymentResource> {
    return this.queries.get(caller, deploymentId);
  }

  @Returns('Deployment')
  @Patch('v2/deployments/:deployment_id')
  @UseInterceptors(ProductAliasesInterceptor, new MisplacedFieldsInterceptor('patch'))
  patch(
    @CurrentCaller() caller: Caller,
    @Param('deployment_id', id) deploymentId: string,
    @Body() body: PatchDeploymentDto,
  ): Promise<DeploymentResource> {
    return this.commands.execute(new PatchDeployment(caller, deploymentId, body));
  }

  @ReturnsNothing()
  @Delete('v2/deployments/:deployment_id')
  @HttpCode(204)
  async remove(
    @CurrentCaller() caller: Caller,
    @Param('deployment_id', id) deploymentId: string,
  ): Promise<void> {
    await this.commands.execute(new DeleteDeployment(caller, deploymentId));
  }

  @Returns('DeploymentHistory')
  @Get('v2/deployments/:deployment_id/history')
  auditHistory(
    @CurrentCaller() caller: Caller,
    @Param('deployment_id', id) deploymentId: string,
  ): Promise<DeploymentHistoryAnswer> {
    return this.history.of(caller, deploymentId);
  }

  @Returns('RevisionPage')
  @Get('v2/deployments/:deployment_id/revisions')
  revisions(
    @CurrentCaller() caller: Caller,
    @Param('deployment_id', id) deploymentId: string,
    @Query() query: ListRevisionsQueryDto,
  ): Promise<Page<RevisionResource>> {
    return this.queries.revisions(caller, deploymentId, query);
  }

  @Returns('Revision')
  @Get('v2/deployments/:deployment_id/revisions/:revision_id')
  revision(
    @CurrentCaller() caller: Caller,
    @Param('deployment_id', id) deploymentId: string,
    @Param('revision_id', id) revisionId: string,
  ): Promise<RevisionResource> {
    return this.queries.revision(caller, deploymentId, revisionId);
  }

  @Returns('Revision')
  @Post('v2/deployments/:deployment_id/revisions/:revision_id/redeploy')
  @HttpCode(200)
  redeploy(
    @CurrentCaller() caller: Caller,
    @Param('deployment_id', id) deploymentId: string,
    @Param('revision_id', id) revisionId: string,
  ): Promise<RevisionResource> {
    return this.commands.execute(new RedeployRevision(caller, deploymentId, revisionId));
  }

  @ReturnsOrStreams('RevisionLogs')
  @Get('v2/deployments/:deployment_id/revisions/:revision_id/logs')
  async revisionLogs(
    @CurrentCaller() caller: Caller,
    @Param('deployment_id', id) deploymentId: string,
    @Param('revision_id', id) revisionId: string,
    @Query() query: LogsQueryDto,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    await this.sendLogs(caller, deploymentId, revisionId, query, reply);
  }

  /** The logs of the active revision, or of the latest one when none is active yet. */
  @ReturnsOrStreams('RevisionLogs')
  @Get('v2/deployments/:deployment_id/logs')
  async deploymentLogs(
    @CurrentCaller() caller: Caller,
    @Param('deployment_id', id) deploymentId: string,
    @Query() query: LogsQueryDto,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    await this.sendLogs(caller, deploymentId, undefined, query, reply);
  }

  @Returns('IssuedUpload')
  @Post('v2/deployments/:deployment_id/upload-url')
  @HttpCode(200)
  uploadUrl(
    @CurrentCaller() caller: Caller,
    @Param('deployment_id', id) deploymentId: string,
    @Req() request: FastifyRequest,
  ): Promise<IssuedUpload> {
    return this.commands.execute(
      new IssueUpload(caller, deploymentId, baseUrlOf(request, this.config.publicUrl)),
    );
  }

  @Returns('IssuedUpload')
  @Post('deployments/:deployment_id/upload-url')
  @HttpCode(200)
  uploadUrlUnversioned(
    @CurrentCaller() caller: Caller,
    @Param('deployment_id', id) deploymentId: string,
    @Req() request: FastifyRequest,
  ): Promise<IssuedUpload> {
    return this.uploadUrl(caller, deploymentId, request);
  }

  /** The lines as JSON, or followed as server-sent events (`follow=true`). */
  private async sendLogs(
    caller: Caller,
    deploymentId: string,
    revisionId: string | undefined,
    query: LogsQueryDto,
    reply: FastifyReply,
  ): Promise<void> {
    if (!query.follow) {
      await reply.send(await this.logs.read(caller, deploymentId, revisionId, query.type));
      return;
    }
    const disconnect = new AbortController();
    const followed = await this.logs.follow(
      caller,
      deploymentId,
      revisionId,
      query.type,
      disconnect.signal,
    );
    if (!followed) {
      await reply.send({ revision_id: null, resources: [] });
      return;
    }
    const events = async function* (items: AsyncIterable<FollowedLogItem>) {
      for await (const item of items) {
        if (item.kind === 'log') yield { id: item.record.id, event: 'log', data: item.record };
        else
          yield {
            event: 'revision',
            data: { revision_id: item.revisionId, replaces: item.replaces },
          };
      }
    };
    await sendSse(reply, events(followed.items), {
      headers: { 'x-revision-id': followed.revisionId },
      heartbeatMs: 10_000,
      disconnect,
    });
  }
}
