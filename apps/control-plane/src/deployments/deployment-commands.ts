import { Inject, Injectable } from '@nestjs/common';
import { AggregateCommands, EventStore, type JsonObject } from '#libs/event-store';
import type { PlainSecret } from '../secrets/secret-vault.js';
import type { Caller } from '../tenancy/tenant-directory.js';
import type { DeploymentCommand } from './domain/deployment.commands.js';
import { deploymentDecider } from './domain/deployment.decider.js';
import { deploymentStream, type DeploymentEvent } from './domain/deployment.events.js';
import type { DeploymentState } from './domain/deployment.state.js';
import type { Actor } from './domain/deployment.types.js';
import {
  nameClaimDecider,
  nameClaimStream,
  type NameClaimCommand,
  type NameClaimEvent,
  type NameClaimState,
} from './domain/name-claim.decider.js';

/** The deployment aggregate's command side, bound once for the handlers of its commands. */
@Injectable()
export class DeploymentCommands extends AggregateCommands<
  DeploymentState,
  DeploymentCommand,
  DeploymentEvent
> {
  constructor(@Inject(EventStore) store: EventStore) {
    super({ store, decider: deploymentDecider, streamOf: deploymentStream });
  }
}

/** A name a tenant's deployment holds: one stream per tenant and name. */
export interface ClaimedName {
  readonly tenant: string;
  readonly name: string;
}

/** The name claims' command side: a name is taken before a deployment has it, freed on delete. */
@Injectable()
export class NameClaims extends AggregateCommands<
  NameClaimState,
  NameClaimCommand,
  NameClaimEvent,
  ClaimedName
> {
  constructor(@Inject(EventStore) store: EventStore) {
    super({
      store,
      decider: nameClaimDecider,
      streamOf: ({ tenant, name }) => nameClaimStream(tenant, name),
    });
  }
}

export const actorOf = (caller: Caller): Actor => ({ kind: 'api_key', ...caller });

/** What the events of a command record of who caused them. */
export const recordedBy = (actor: Actor): JsonObject => ({ actor });

/** Secrets as given, without anything else a request carried. */
export function plainSecrets(secrets: readonly PlainSecret[] | null | undefined): PlainSecret[] {
  return (secrets ?? []).map(({ name, value }) => ({ name, value }));
}
