import { Inject, Injectable } from '@nestjs/common';
import { DataSource, type Repository } from 'typeorm';
import { EventStore, handleCommand, uuidv7, type JsonObject } from '#libs/event-store';
import { ValidationFailedError } from '#libs/http';
import { badRequest, notFound } from '#libs/domain';
import { ReadModelFreshness } from '#libs/persistence';
import { CONTROL_PLANE_CONFIG } from '../control-plane.tokens.js';
import type { ControlPlaneConfig } from '../control-plane.config.js';
import { GitHostIntegrations } from '../tenancy/git-host-integrations.js';
import { checkGitSource } from '../isolation/git-source-policy.js';
import { ListenerDirectory } from '../listeners/listener-directory.js';
import { SecretVault, type PlainSecret } from '../secrets/secret-vault.js';
import type { Caller } from '../tenancy/tenant-directory.js';
import { UploadStore, type IssuedUpload } from '../uploads/upload-store.js';
import type { RuntimeAddress } from './runtime-address.js';
import type { DeploymentCommand, SecretsChange } from './domain/deployment.commands.js';
import { deploymentDecider } from './domain/deployment.decider.js';
import { initialDeploymentState } from './domain/deployment.evolve.js';
import { DeploymentEntity, type DeploymentRow } from './read-model/deployment.entity.js';
import { deploymentStream } from './domain/deployment.events.js';
import {
  toDeploymentResource,
  toRevisionResource,
  type DeploymentResource,
  type RevisionResource,
} from './read-model/deployment.resource.js';
import { findRevision, type DeploymentState } from './domain/deployment.state.js';
import { REVISION_STATUSES, type Actor, type RevisionStatus } from './domain/deployment.types.js';
import type {
  CreateDeploymentDto,
  ListDeploymentsQueryDto,
  ListRevisionsQueryDto,
  PatchDeploymentDto,
} from './deployments.dto.js';
import { nameClaimDecider, nameClaimStream } from './domain/name-claim.decider.js';

/** A page of a list, and the offset of the next page. */
export type Page<Resource> = { resources: Resource[]; offset: number };

const DEFAULT_LIMIT = 20;

export const actorOf = (caller: Caller): Actor => ({ kind: 'api_key', ...caller });

@Injectable()
export class DeploymentsService {
  private readonly rows: Repository<DeploymentRow>;

  constructor(
    private readonly store: EventStore,
    dataSource: DataSource,
    private readonly freshness: ReadModelFreshness,
    private readonly vault: SecretVault,
    private readonly uploads: UploadStore,
    private readonly listeners: ListenerDirectory,
    @Inject(GitHostIntegrations) private readonly integrations: GitHostIntegrations,
    @Inject(CONTROL_PLANE_CONFIG) private readonly config: ControlPlaneConfig,
  ) {
    this.rows = dataSource.getRepository(DeploymentEntity);
  }

  async create(caller: Caller, body: CreateDeploymentDto): Promise<DeploymentResource> {
    const deploymentId = uuidv7();
    const now = new Date().toISOString();
    const config = body.source_config ?? {};
    checkGitSource(config.repo_url, this.config.allowLocalSources);
    const command: Extract<DeploymentCommand, { kind: 'create' }> = {
      kind: 'create',
      deployment_id: deploymentId,
      tenant_id: caller.tenant_id,
      name: body.name,
      source: body.source,
      source_config: config,
      source_revision_config: body.source_revision_config ?? {},
      secrets: (body.secrets ?? []).map(({ name }) => ({ name, sealed: '' })),
      secret_references: body.secret_references ?? null,
      listener: config.listener_id
        ? await this.listeners.find(caller.tenant_id, config.listener_id)
        : null,
      integration_id: this.integrations.idOf(caller.tenant_id),
      revision_id: uuidv7(),
      tracing_project_id: uuidv7(),
      now,
    };
    // Every rule first, so that a refused request claims no name and seals no secret.
    deploymentDecider.decide(command, initialDeploymentState);
    const metadata = this.metadata(actorOf(caller));
    await handleCommand(
      this.store,
      nameClaimStream(caller.tenant_id, body.name),
      nameClaimDecider,
      { kind: 'claim', deployment_id: deploymentId, name: body.name },
      metadata,
    );
    const secrets = await this.vault.seal(deploymentId, plain(body.secrets));
    const { state } = await handleCommand(
      this.store,
      deploymentStream(deploymentId),
      deploymentDecider,
      { ...command, secrets },
      metadata,
    );
    return toDeploymentResource(state);
  }

  async patch(
    caller: Caller,
    deploymentId: string,
    body: PatchDeploymentDto,
    actor: Actor = actorOf(caller),
    trigger: 'patch' | 'push' = 'patch',
  ): Promise<DeploymentResource> {
    const current = await this.stateOf(caller, deploymentId);
    checkGitSource(body.source_config?.repo_url, this.config.allowLocalSources);
    const tarball = body.source_revision_config?.source_tarball_path;
    const issued = current.uploads.some((upload) => upload.object_path === tarball);
    const uploaded = tarball && issued && (await this.uploads.exists(tarball));
    if (tarball && issued && !uploaded) {
      throw badRequest(
        `source_revision_config.source_tarball_path: nothing was uploaded to ${tarball} yet ` +
          '(PUT the tarball to its upload_url first)',
      );
    }
    const tarballSha256 = uploaded ? await this.uploads.sha256Of(tarball) : null;
    const secrets = body.secrets ? await this.secretsChange(current, plain(body.secrets)) : null;
    const { state } = await handleCommand(
      this.store,
      deploymentStream(deploymentId),
      deploymentDecider,
      {
        kind: 'patch',
        deployment_id: deploymentId,
        tenant_id: caller.tenant_id,
        name: body.name,
        source: body.source,
        revision_source: body.revision_source ?? null,
        source_config: body.source_config ?? null,
        source_revision_config: body.source_revision_config ?? null,
        secrets,
        secret_references: body.secret_references ?? null,
        revision_id: uuidv7(),
        source_tarball_sha256: tarballSha256,
        trigger,
        now: new Date().toISOString(),
      },
      this.metadata(actor),
    );
    return toDeploymentResource(state);
  }

  async remove(caller: Caller, deploymentId: string): Promise<void> {
    const { state } = await handleCommand(
      this.store,
      deploymentStream(deploymentId),
      deploymentDecider,
      {
        kind: 'delete',
        deployment_id: deploymentId,
        tenant_id: caller.tenant_id,
        now: new Date().toISOString(),
      },
      this.metadata(actorOf(caller)),
    );
    // Nothing on this machine runs an external_container deployment (its cluster listener is
    // only a registration), so there is nothing to tear down: it is gone at once.
    if (state.source === 'external_container' && !state.deleted) {
      await this.vault.forget(deploymentId);
      await handleCommand(
        this.store,
        deploymentStream(deploymentId),
        deploymentDecider,
        { kind: 'torn_down', now: new Date().toISOString() },
        this.metadata(actorOf(caller)),
      );
    }
    // The name is free again at once; the old deployment is torn down in the background.
    await handleCommand(
      this.store,
      nameClaimStream(caller.tenant_id, state.name),
      nameClaimDecider,
      { kind: 'release', deployment_id: deploymentId },
      this.metadata(actorOf(caller)),
    );
  }

  async redeploy(
    caller: Caller,
    deploymentId: string,
    revisionId: string,
  ): Promise<RevisionResource> {
    const { state } = await handleCommand(
      this.store,
      deploymentStream(deploymentId),
      deploymentDecider,
      {
        kind: 'redeploy',
        deployment_id: deploymentId,
        tenant_id: caller.tenant_id,
        revision_id: revisionId,
        now: new Date().toISOString(),
      },
      this.metadata(actorOf(caller)),
    );
    const revision = findRevision(state, revisionId);
    if (!revision) throw notFound(`Revision ${revisionId} not found`);
    return toRevisionResource(state, revision);
  }

  async issueUpload(caller: Caller, deploymentId: string, baseUrl: string): Promise<IssuedUpload> {
    const now = new Date();
    const issued = this.uploads.issue(deploymentId, baseUrl, now);
    await handleCommand(
      this.store,
      deploymentStream(deploymentId),
      deploymentDecider,
      {
        kind: 'issue_upload',
        deployment_id: deploymentId,
        tenant_id: caller.tenant_id,
        object_path: issued.object_path,
        expires_at: issued.expires_at,
        now: now.toISOString(),
      },
      this.metadata(actorOf(caller)),
    );
    return issued;
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

  private async secretsChange(
    state: DeploymentState,
    next: readonly PlainSecret[],
  ): Promise<SecretsChange> {
    const deploymentId = state.deployment_id ?? '';
    const before = new Map(
      (await this.vault.open(deploymentId, state.secrets)).map((s) => [s.name, s.value]),
    );
    const after = new Map(next.map((secret) => [secret.name, secret.value]));
    const names = new Set([...before.keys(), ...after.keys()]);
    return {
      sealed: await this.vault.seal(deploymentId, next),
      changed: [...names].filter((name) => before.get(name) !== after.get(name)).sort(),
    };
  }

  private metadata(actor: Actor): JsonObject {
    return { actor };
  }
}

function plain(secrets: readonly PlainSecret[] | null | undefined): PlainSecret[] {
  return (secrets ?? []).map(({ name, value }) => ({ name, value }));
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
