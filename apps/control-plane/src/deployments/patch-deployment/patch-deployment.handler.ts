import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { badRequest } from '#libs/domain';
import { uuidv7 } from '#libs/event-store';
import type { ControlPlaneConfig } from '../../control-plane.config.js';
import { CONTROL_PLANE_CONFIG } from '../../control-plane.tokens.js';
import { checkGitSource } from '../../isolation/git-source-policy.js';
import { SecretVault, type PlainSecret } from '../../secrets/secret-vault.js';
import { UploadStore } from '../../uploads/upload-store.js';
import { actorOf, DeploymentCommands, plainSecrets, recordedBy } from '../deployment-commands.js';
import { DeploymentQueries } from '../deployment-queries.service.js';
import type { SecretsChange } from '../domain/deployment.commands.js';
import type { DeploymentState } from '../domain/deployment.state.js';
import {
  toDeploymentResource,
  type DeploymentResource,
} from '../read-model/deployment.resource.js';
import { PatchDeployment } from './patch-deployment.command.js';

@CommandHandler(PatchDeployment)
export class PatchDeploymentHandler implements ICommandHandler<PatchDeployment> {
  constructor(
    @Inject(DeploymentCommands) private readonly deployments: DeploymentCommands,
    @Inject(DeploymentQueries) private readonly queries: DeploymentQueries,
    @Inject(UploadStore) private readonly uploads: UploadStore,
    @Inject(SecretVault) private readonly vault: SecretVault,
    @Inject(CONTROL_PLANE_CONFIG) private readonly config: ControlPlaneConfig,
  ) {}

  async execute(patch: PatchDeployment): Promise<DeploymentResource> {
    const { caller, deploymentId, body } = patch;
    const current = await this.queries.stateOf(caller, deploymentId);
    checkGitSource(body.source_config?.repo_url, this.config.allowLocalSources);
    const tarballSha256 = await this.uploadedTarballSha(current, patch);
    const secrets = body.secrets
      ? await this.secretsChange(current, plainSecrets(body.secrets))
      : null;
    const { state } = await this.deployments.handle(
      deploymentId,
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
        trigger: patch.trigger,
        now: new Date().toISOString(),
      },
      { metadata: recordedBy(patch.actor ?? actorOf(caller)) },
    );
    return toDeploymentResource(state);
  }

  /** The SHA-256 of the tarball the PATCH names, once it was uploaded where it was issued. */
  private async uploadedTarballSha(
    current: DeploymentState,
    { body }: PatchDeployment,
  ): Promise<string | null> {
    const tarball = body.source_revision_config?.source_tarball_path;
    const issued = current.uploads.some((upload) => upload.object_path === tarball);
    const uploaded = tarball && issued && (await this.uploads.exists(tarball));
    if (tarball && issued && !uploaded) {
      throw badRequest(
        `source_revision_config.source_tarball_path: nothing was uploaded to ${tarball} yet ` +
          '(PUT the tarball to its upload_url first)',
      );
    }
    return uploaded ? await this.uploads.sha256Of(tarball) : null;
  }

  /** The new secrets sealed, and the names whose values changed. */
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
}
