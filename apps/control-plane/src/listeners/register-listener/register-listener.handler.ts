import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { badRequest } from '#libs/domain';
import { EventStore, uuidv7 } from '#libs/event-store';
import { isSealingPublicKey } from '#libs/sealed-box';
import { listenerResourceOf, type ListenerResource } from '../listener-directory.js';
import { listenerStream, type ListenerRegisteredData } from '../listeners.projection.js';
import { RegisterListener } from './register-listener.command.js';

/** A new listener's stream begins with its registration; a listener is never registered twice. */
@CommandHandler(RegisterListener)
export class RegisterListenerHandler implements ICommandHandler<RegisterListener> {
  constructor(@Inject(EventStore) private readonly store: EventStore) {}

  async execute({ caller, name, computeConfig }: RegisterListener): Promise<ListenerResource> {
    const publicKey = computeConfig.public_key;
    if (
      publicKey !== undefined &&
      (typeof publicKey !== 'string' || !isSealingPublicKey(publicKey))
    ) {
      throw badRequest(
        "compute_config.public_key must be an X25519 public key in PEM (-----BEGIN PUBLIC KEY-----): the deployments' secrets are sealed for it",
      );
    }
    const data: ListenerRegisteredData = {
      listener_id: uuidv7(),
      tenant_id: caller.tenant_id,
      name,
      compute_type: 'cluster',
      compute_config: computeConfig,
      created_at: new Date().toISOString(),
    };
    await this.store.append(
      listenerStream(data.listener_id),
      [
        {
          eventId: uuidv7(),
          type: 'ListenerRegistered',
          data,
          metadata: { actor: { kind: 'api_key', ...caller } },
        },
      ],
      { expectedPosition: 'no_stream' },
    );
    return listenerResourceOf({ ...data, created_at: new Date(data.created_at) });
  }
}
