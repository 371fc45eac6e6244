import { Returns } from '#libs/http';
import { Body, Controller, HttpCode, Param, ParseUUIDPipe, Post, Inject } from '@nestjs/common';
import { CurrentCaller } from '../tenancy/caller.js';
import type { Caller } from '../tenancy/tenant-directory.js';
import type { LogPage } from '../logs/log-page.js';
import { LogPageQueryDto } from '../logs/log-page.dto.js';
import { DeploymentLogs } from './deployment-logs.service.js';

const id = new ParseUUIDPipe();

/** The log routes the official deploy CLI reads: pages of the same streams as `/v2/.../logs`. */
@Controller('v1/projects/:deployment_id')
export class ProjectLogsController {
  constructor(@Inject(DeploymentLogs) private readonly logs: DeploymentLogs) {}

  @Returns('LogPage')
  @Post('revisions/:revision_id/build_logs')
  @HttpCode(200)
  buildLogs(
    @CurrentCaller() caller: Caller,
    @Param('deployment_id', id) deploymentId: string,
    @Param('revision_id', id) revisionId: string,
    @Body() query: LogPageQueryDto,
  ): Promise<LogPage> {
    return this.logs.page(caller, deploymentId, revisionId, 'build', query);
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
    return this.logs.page(caller, deploymentId, revisionId, 'deploy', query);
  }

  /** The runtime logs of the active revision, or of the latest one when none is active yet. */
  @Returns('LogPage')
  @Post('deploy_logs')
  @HttpCode(200)
  deployLogs(
    @CurrentCaller() caller: Caller,
    @Param('deployment_id', id) deploymentId: string,
    @Body() query: LogPageQueryDto,
  ): Promise<LogPage> {
    return this.logs.page(caller, deploymentId, undefined, 'deploy', query);
  }
}
