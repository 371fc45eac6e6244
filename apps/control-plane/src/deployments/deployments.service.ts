import { Inject, Injectable } from '@nestjs/common';
import { EventStore, handleCommand, uuidv7, type JsonObject } from '#libs/event-store';
import { badRequest, notFound } from '#libs/domain';
import { CONTROL_PLANE_CONFIG } from '../control-plane.tokens.js';
import type { ControlPlaneConfig } from '../control-plane.config.js';
import { GitHostIntegrations } from '../tenancy/git-host-integrations.js';
import { checkGitSource } from '../isolation/git-source-policy.js';
import { ListenerDirectory } from '../listeners/listener-directory.js';
import { SecretVault, type PlainSecret } from '../secrets/secret-vault.js';
import type { Caller } from '../tenancy/tenant-directory.js';
import { UploadStore, type IssuedUpload } from '../uploads/upload-store.js';
import { DeploymentQueries } from './deployment-queries.service.js';
import type { DeploymentCommand, SecretsChange } from './domain/deployment.commands.js';
import { deploymentDecider } from './domain/deployment.decider.js';
import { initialDeploymentState } from './domain/deployment.evolve.js';
import { deploymentStream } from './domain/deployment.events.js';
import {
  toDeploymentResource,
  toRevisionResource,
  type DeploymentResource,
  type RevisionResource,
} from './read-model/deployment.resource.js';
import { findRevision, type DeploymentState } from './domain/deployment.state.js';
import { type Actor } from './domain/deployment.types.js';
import type { CreateDeploymentDto, PatchDeploymentDto } from './deployments.dto.js';
import { nameClaimDecider, nameClaimStream } from './domain/name-claim.decider.js';
import { DeploymentQuota } from './deployment-quota.service.js';

export const actorOf = (caller: Caller): Actor => ({ kind: 'api_key', ...caller });

@Injectable()
export class DeploymentsService {
  constructor(
    private readonly store: EventStore,
    private readonly queries: DeploymentQueries,
    private readonly vault: SecretVault,
    private readonly uploads: UploadStore,
    private readonly listeners: ListenerDirectory,
    @Inject(GitHostIntegrations) private readonly integrations: GitHostIntegrations,
    @Inject(CONTROL_PLANE_CONFIG) private readonly config: ControlPlaneConfig,
    private readonly quota: DeploymentQuota,
  ) {}

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
    // A tenant at its quota is refused (409) before it claims a name.
    await this.quota.take(caller.tenant_id, deploymentId, metadata);
    try {
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
    } catch (error) {
      // Not created (a name taken, say): its place goes back.
      await this.quota.release(caller.tenant_id, deploymentId, metadata).catch(() => undefined);
      throw error;
    }
  }

  async patch(
    caller: Caller,
    deploymentId: string,
    body: PatchDeploymentDto,
    actor: Actor = actorOf(caller),
    trigger: 'patch' | 'push' = 'patch',
  ): Promise<DeploymentResource> {
    const current = await this.queries.stateOf(caller, deploymentId);
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
    // So is its place in the tenant's quota.
    await this.quota.release(caller.tenant_id, deploymentId, this.metadata(actorOf(caller)));
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
