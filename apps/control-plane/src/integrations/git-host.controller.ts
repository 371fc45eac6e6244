import { Returns } from '#libs/http';
import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { IsOptional, IsString, MinLength } from 'class-validator';
import { DataSource, type Repository } from 'typeorm';
import { notFound } from '#libs/domain';
import { DeploymentEntity, type DeploymentRow } from '../deployments/deployment.entity.js';
import { DeploymentsService } from '../deployments/deployments.service.js';
import { ReadModelFreshness } from '#libs/persistence';
import { CurrentCaller } from '../tenancy/caller.js';
import type { Caller } from '../tenancy/tenant-directory.js';
import { GitHostIntegrations } from './git-host-integrations.js';

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
  private readonly rows: Repository<DeploymentRow>;

  constructor(
    private readonly integrations: GitHostIntegrations,
    private readonly deployments: DeploymentsService,
    private readonly freshness: ReadModelFreshness,
    dataSource: DataSource,
  ) {
    this.rows = dataSource.getRepository(DeploymentEntity);
  }

  @Returns('GitHostInstall')
  @Get('install')
  install(@CurrentCaller() caller: Caller): object {
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
  ): Promise<{ revisions: { deployment_id: string; revision_id: string | null }[] }> {
    if (integrationId !== this.integrations.idOf(caller.tenant_id)) {
      throw notFound(`Integration ${integrationId} not found`);
    }
    const branch = body.ref.replace(/^refs\/heads\//, '');
    await this.freshness.catchUp('deployments');
    const rows = await this.rows
      .createQueryBuilder('d')
      .where('d.tenant_id = :tenant', { tenant: caller.tenant_id })
      .andWhere("d.state->>'source' = 'git_host'")
      .andWhere("d.state->'source_config'->>'repo_url' = :url", { url: body.repo_url })
      .andWhere("(d.state->'source_config'->>'build_on_push')::boolean")
      .andWhere("d.state->'source_revision_config'->>'repo_ref' = :branch", { branch })
      .getMany();
    const revisions = [];
    for (const row of rows) {
      const updated = (await this.deployments.patch(
        caller,
        row.deployment_id,
        { source_revision_config: { repo_ref: branch } },
        { kind: 'git_host', integration_id: integrationId },
        'push',
      )) as { latest_revision_id: string | null };
      revisions.push({ deployment_id: row.deployment_id, revision_id: updated.latest_revision_id });
    }
    return { revisions };
  }
}
