import { Returns } from '#libs/http';
import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { IsOptional, IsString, MinLength } from 'class-validator';
import { CurrentCaller } from '../tenancy/caller.js';
import type { Caller } from '../tenancy/tenant-directory.js';
import { GitHostIntegrations } from '../tenancy/git-host-integrations.js';
import { GitPushService, type PushedRevision } from './git-push.service.js';

export interface GitHostInstall {
  readonly integration_id: string;
  readonly provider: 'git';
  readonly installed: boolean;
  readonly detail: string;
}

export class PushNotificationDto {
  @IsString()
  @MinLength(1)
  repo_url!: string;

  /** The pushed ref: `refs/heads/<branch>` or a branch name. */
  @IsString()
  @MinLength(1)
  ref!: string;

  @IsOptional()
  @IsString()
  after?: string;
}

@Controller('v1/integrations/git_host')
export class GitHostController {
  constructor(
    private readonly integrations: GitHostIntegrations,
    private readonly pushes: GitPushService,
  ) {}

  @Returns('GitHostInstall')
  @Get('install')
  install(@CurrentCaller() caller: Caller): GitHostInstall {
    return {
      integration_id: this.integrations.idOf(caller.tenant_id),
      provider: 'git',
      installed: true,
      detail:
        'Berth clones repositories itself: any repo_url that git can read from this machine ' +
        '(https, ssh, a local path or file:// URL). POST push notifications to ' +
        '/v1/integrations/git_host/{integration_id}/push.',
    };
  }

  /** A push: every build_on_push deployment following the pushed branch gets a new revision. */
  @Returns('GitHostPushed', 202)
  @Post(':integration_id/push')
  @HttpCode(202)
  async push(
    @CurrentCaller() caller: Caller,
    @Param('integration_id') integrationId: string,
    @Body() body: PushNotificationDto,
  ): Promise<{ revisions: PushedRevision[] }> {
    return { revisions: await this.pushes.pushed(caller, integrationId, body.repo_url, body.ref) };
  }
}
