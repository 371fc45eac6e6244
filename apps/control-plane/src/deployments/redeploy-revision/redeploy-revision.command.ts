import { Command } from '@nestjs/cqrs';
import type { Caller } from '../../tenancy/tenant-directory.js';
import type { RevisionResource } from '../read-model/deployment.resource.js';

/** An earlier revision is deployed again, from its kept build where there is one. */
export class RedeployRevision extends Command<RevisionResource> {
  constructor(
    readonly caller: Caller,
    readonly deploymentId: string,
    readonly revisionId: string,
  ) {
    super();
  }
}
