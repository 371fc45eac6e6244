import { Inject, Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { DataSource, type Repository } from 'typeorm';
import { notFound } from '#libs/domain';
import { ReadModelFreshness } from '#libs/persistence';
import {
  DeploymentEntity,
  type DeploymentRow,
} from '../deployments/read-model/deployment.entity.js';
import { PatchDeployment } from '../deployments/patch-deployment/patch-deployment.command.js';
import { GitHostIntegrations } from '../tenancy/git-host-integrations.js';
import type { Caller } from '../tenancy/tenant-directory.js';

export interface PushedRevision {
  readonly deployment_id: string;
  readonly revision_id: string | null;
}

/** A push to a repository: each deployment that builds on push from that branch gets a revision. */
@Injectable()
export class GitPushService {
  private readonly rows: Repository<DeploymentRow>;

  constructor(
    @Inject(GitHostIntegrations) private readonly integrations: GitHostIntegrations,
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(ReadModelFreshness) private readonly freshness: ReadModelFreshness,
    @Inject(DataSource) dataSource: DataSource,
  ) {
    this.rows = dataSource.getRepository(DeploymentEntity);
  }

  async pushed(
    caller: Caller,
    integrationId: string,
    repoUrl: string,
    ref: string,
  ): Promise<PushedRevision[]> {
    if (integrationId !== this.integrations.idOf(caller.tenant_id)) {
      throw notFound(`Integration ${integrationId} not found`);
    }
    const branch = ref.replace(/^refs\/heads\//, '');
    await this.freshness.catchUp('deployments');
    const followers = await this.rows.find({
      select: { deployment_id: true },
      where: { tenant_id: caller.tenant_id, push_repo_url: repoUrl, push_repo_ref: branch },
    });
    const revisions: PushedRevision[] = [];
    for (const { deployment_id } of followers) {
      const updated = await this.commands.execute(
        new PatchDeployment(
          caller,
          deployment_id,
          { source_revision_config: { repo_ref: branch } },
          { kind: 'git_host', integration_id: integrationId },
          'push',
        ),
      );
      revisions.push({ deployment_id, revision_id: updated.latest_revision_id });
    }
    return revisions;
  }
}
