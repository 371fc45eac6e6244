import { Injectable, Inject } from '@nestjs/common';
import { DataSource, type Repository } from 'typeorm';
import { notFound } from '#libs/domain';
import { ValidationFailedError } from '#libs/http';
import { ReadModelFreshness } from '#libs/persistence';
import type { Caller } from '../tenancy/tenant-directory.js';
import type { ListDeploymentsQueryDto, ListRevisionsQueryDto } from './deployments.dto.js';
import { findRevision, type DeploymentState } from './domain/deployment.state.js';
import { REVISION_STATUSES, type RevisionStatus } from './domain/deployment.types.js';
import { DeploymentEntity, type DeploymentRow } from './read-model/deployment.entity.js';
import {
  toDeploymentResource,
  toRevisionResource,
  type DeploymentResource,
  type RevisionResource,
} from './read-model/deployment.resource.js';
import type { RuntimeAddress } from './runtime-address.js';

/** A page of a list, and the offset of the next page. */
export type Page<Resource> = { resources: Resource[]; offset: number };

const DEFAULT_LIMIT = 20;

/** A tenant's deployments and revisions as the read model holds them, caught up with every write. */
@Injectable()
export class DeploymentQueries {
  private readonly rows: Repository<DeploymentRow>;

  constructor(
    @Inject(DataSource) dataSource: DataSource,
    @Inject(ReadModelFreshness) private readonly freshness: ReadModelFreshness,
  ) {
    this.rows = dataSource.getRepository(DeploymentEntity);
  }

  async get(caller: Caller, deploymentId: string): Promise<DeploymentResource> {
    return toDeploymentResource(await this.stateOf(caller, deploymentId));
  }

  async list(caller: Caller, query: ListDeploymentsQueryDto): Promise<Page<DeploymentResource>> {
    await this.freshness.catchUp('deployments');
    const offset = query.offset ?? 0;
    const builder = this.rows
      .createQueryBuilder('d')
      .where('d.tenant_id = :tenant', { tenant: caller.tenant_id })
      .orderBy('d.created_at', 'DESC')
      .addOrderBy('d.deployment_id', 'DESC')
      .skip(offset)
      .take(query.limit ?? DEFAULT_LIMIT);
    if (query.name !== undefined) builder.andWhere('d.name = :name', { name: query.name });
    if (query.name_contains !== undefined) {
      builder.andWhere('strpos(lower(d.name), lower(:part)) > 0', { part: query.name_contains });
    }
    if (query.status) builder.andWhere('d.status = :status', { status: query.status });
    if (query.deployment_type) {
      builder.andWhere('d.deployment_type = :type', { type: query.deployment_type });
    }
    const rows = await builder.getMany();
    return {
      resources: rows.map((row) => toDeploymentResource(row.state)),
      offset: offset + rows.length,
    };
  }

  async revisions(
    caller: Caller,
    deploymentId: string,
    query: ListRevisionsQueryDto,
  ): Promise<Page<RevisionResource>> {
    const state = await this.stateOf(caller, deploymentId);
    const statuses = query.status ? revisionStatuses(query.status) : undefined;
    const offset = query.offset ?? 0;
    const matching = [...state.revisions]
      .reverse()
      .filter((revision) => !statuses || statuses.includes(revision.status));
    const page = matching.slice(offset, offset + (query.limit ?? DEFAULT_LIMIT));
    return {
      resources: page.map((revision) => toRevisionResource(state, revision)),
      offset: offset + page.length,
    };
  }

  async revision(
    caller: Caller,
    deploymentId: string,
    revisionId: string,
  ): Promise<RevisionResource> {
    const state = await this.stateOf(caller, deploymentId);
    const revision = findRevision(state, revisionId);
    if (!revision) throw notFound(`Revision ${revisionId} of deployment ${deploymentId} not found`);
    return toRevisionResource(state, revision);
  }

  /** Where the caller's deployment's runtime answers on this machine (its proxy's port). */
  async runtimeAddress(caller: Caller, deploymentId: string): Promise<RuntimeAddress> {
    const state = await this.stateOf(caller, deploymentId);
    if (state.status === 'AWAITING_DELETE') {
      return { unreachable: `Deployment ${deploymentId} is being deleted` };
    }
    if (state.port === null) {
      return {
        unreachable: `Deployment ${deploymentId} has no runtime on this control plane's machine`,
      };
    }
    return { port: state.port };
  }

  /** The deployment as the read model holds it, caught up with every write made before now. */
  async stateOf(caller: Caller, deploymentId: string): Promise<DeploymentState> {
    await this.freshness.catchUp('deployments');
    const row = await this.rows.findOneBy({ deployment_id: deploymentId });
    if (!row || row.tenant_id !== caller.tenant_id) {
      throw notFound(`Deployment ${deploymentId} not found`);
    }
    return row.state;
  }
}

function revisionStatuses(text: string): RevisionStatus[] {
  const statuses = text.split(',');
  const unknown = statuses.filter(
    (status) => !(REVISION_STATUSES as readonly string[]).includes(status),
  );
  if (unknown.length > 0) {
    throw new ValidationFailedError([
      {
        loc: ['query', 'status'],
        msg: `Unknown revision status ${unknown.join(', ')}; known: ${REVISION_STATUSES.join(', ')}`,
        type: 'value_error.enum',
      },
    ]);
  }
  return statuses as RevisionStatus[];
}
