import { Returns } from '#libs/http';
import { Body, Controller, Get, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { IsOptional, IsString, MinLength } from 'class-validator';
import type { ControlPlaneConfig } from '../control-plane.config.js';
import { CONTROL_PLANE_CONFIG } from '../control-plane.tokens.js';
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

/**
 * What the integration tells a client about the repositories it takes: what the git source policy
 * (`isolation/git-source-policy.ts`, BERTH_ALLOW_LOCAL_SOURCES) lets through, nothing more.
 */
export function gitHostInstallDetail(allowLocalSources: boolean): string {
  const reach = allowLocalSources
    ? 'any repo_url git can read from this machine: a remote repository (https://, http://, ' +
      'ssh://, git:// or user@host:path), or, as this platform allows local sources, ' +
      'a path or file:// URL on its machine'
    : 'a remote repository git can reach from this machine (https://, http://, ssh://, git:// ' +
      'or user@host:path); local paths and file:// URLs are refused unless the operator sets ' +
      'BERTH_ALLOW_LOCAL_SOURCES=true';
  return (
    `Berth clones repositories itself: ${reach}. POST push notifications to ` +
    '/v1/integrations/git_host/{integration_id}/push.'
  );
}

@Controller('v1/integrations/git_host')
export class GitHostController {
  constructor(
    @Inject(GitHostIntegrations) private readonly integrations: GitHostIntegrations,
    @Inject(GitPushService) private readonly pushes: GitPushService,
    @Inject(CONTROL_PLANE_CONFIG) private readonly config: ControlPlaneConfig,
  ) {}

  @Returns('GitHostInstall')
  @Get('install')
  install(@CurrentCaller() caller: Caller): GitHostInstall {
    return {
      integration_id: this.integrations.idOf(caller.tenant_id),
      provider: 'git',
      installed: true,
      detail: gitHostInstallDetail(this.config.allowLocalSources),
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
