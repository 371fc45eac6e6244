import { Command } from '@nestjs/cqrs';
import type { JsonObject } from '#libs/event-store';
import type { Caller } from '../../tenancy/tenant-directory.js';
import type { ListenerResource } from '../listener-directory.js';

/** A tenant registers a cluster listener, which deployments can then name. */
export class RegisterListener extends Command<ListenerResource> {
  constructor(
    readonly caller: Caller,
    readonly name: string,
    readonly computeConfig: JsonObject,
  ) {
    super();
  }
}
