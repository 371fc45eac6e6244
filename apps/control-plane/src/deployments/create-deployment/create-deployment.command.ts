import { Command } from '@nestjs/cqrs';
import type { Caller } from '../../tenancy/tenant-directory.js';
import type { DeploymentResource } from '../read-model/deployment.resource.js';
import type { CreateDeploymentDto } from './create-deployment.dto.js';

/** A tenant creates a deployment. */
export class CreateDeployment extends Command<DeploymentResource> {
  constructor(
    readonly caller: Caller,
    readonly body: CreateDeploymentDto,
  ) {
    super();
  }
}
