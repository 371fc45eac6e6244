import { Returns } from '#libs/http';
import { Body, Controller, HttpCode, Param, ParseUUIDPipe, Post } from '@nestjs/common';
import { DeploymentsService } from './deployments.service.js';
import { CurrentCaller } from '../tenancy/caller.js';
import type { Caller } from '../tenancy/tenant-directory.js';
import { logPage, type LogPage } from '../logs/log-page.js';
import { LogPageQueryDto } from '../logs/log-page.dto.js';
import type { LogType } from '../logs/revision-log.js';
import { RevisionLogs } from '../logs/revision-logs.js';

const id = new ParseUUIDPipe();

/** The log routes the official deploy CLI reads: pages of the same streams as `/v2/.../logs`. */
@Controller('v1/projects/:deployment_id')
export class ProjectLogsController {
  constructor(
    private readonly deployments: DeploymentsService,
    private readonly logs: RevisionLogs,
  ) {}

  @Returns('LogPage')
  @Post('revisions/:revision_id/build_logs')
  @HttpCode(200)
  buildLogs(
    @CurrentCaller() caller: Caller,
    @Param('deployment_id', id) deploymentId: string,
    @Param('revision_id', id) revisionId: string,
    @Body() query: LogPageQueryDto,
  ): Promise<LogPage> {
    return this.revisionPage(caller, deploymentId, revisionId, 'build', query);
  }

  @Returns('LogPage')
  @Post('revisions/:revision_id/deploy_logs')
  @HttpCode(200)
  revisionDeployLogs(
    @CurrentCaller() caller: Caller,
    @Param('deployment_id', id) deploymentId: string,
    @Param('revision_id', id) revisionId: string,
    @Body() query: LogPageQueryDto,
  ): Promise<LogPage> {
    return this.revisionPage(caller, deploymentId, revisionId, 'deploy', query);
  }

  /** The runtime logs of the active revision, or of the latest one when none is active yet. */
  @Returns('LogPage')
  @Post('deploy_logs')
  @HttpCode(200)
  async deployLogs(
    @CurrentCaller() caller: Caller,
    @Param('deployment_id', id) deploymentId: string,
    @Body() query: LogPageQueryDto,
  ): Promise<LogPage> {
    const state = await this.deployments.stateOf(caller, deploymentId);
    const revisionId = state.active_revision_id ?? state.latest_revision_id;
    if (!revisionId) return logPage([], query);
    return logPage(await this.logs.read(revisionId, 'deploy'), query);
  }

  private async revisionPage(
    caller: Caller,
    deploymentId: string,
    revisionId: string,
    type: LogType,
    query: LogPageQueryDto,
  ): Promise<LogPage> {
    await this.deployments.revision(caller, deploymentId, revisionId);
    return logPage(await this.logs.read(revisionId, type), query);
  }
}
