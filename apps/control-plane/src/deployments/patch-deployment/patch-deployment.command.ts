import { Command } from '@nestjs/cqrs';
import type { Caller } from '../../tenancy/tenant-directory.js';
import type { Actor } from '../domain/deployment.types.js';
import type { DeploymentResource } from '../read-model/deployment.resource.js';
import type { PatchDeploymentDto } from './patch-deployment.dto.js';

/** A deployment's settings change; a change of its source, secrets or resources is a revision. */
export class PatchDeployment extends Command<DeploymentResource> {
  constructor(
    readonly caller: Caller,
    readonly deploymentId: string,
    readonly body: PatchDeploymentDto,
    /** Who the events name: the caller's key, or the git host whose push made the revision. */
    readonly actor?: Actor,
    readonly trigger: 'patch' | 'push' = 'patch',
  ) {
    super();
  }
}
