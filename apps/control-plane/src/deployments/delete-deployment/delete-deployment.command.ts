import { Command } from '@nestjs/cqrs';
import type { Caller } from '../../tenancy/tenant-directory.js';

/** A tenant deletes a deployment: its name and its place are free at once. */
export class DeleteDeployment extends Command<void> {
  constructor(
    readonly caller: Caller,
    readonly deploymentId: string,
  ) {
    super();
  }
}
