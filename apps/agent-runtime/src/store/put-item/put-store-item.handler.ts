import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { StoreAccess } from '../store-access.js';
import { requireValidNamespace } from '../store-namespace.js';
import { StoreService } from '../store.service.js';
import { PutStoreItem } from './put-store-item.command.js';

@CommandHandler(PutStoreItem)
export class PutStoreItemHandler implements ICommandHandler<PutStoreItem> {
  constructor(
    @Inject(StoreService) private readonly store: StoreService,
    @Inject(StoreAccess) private readonly access: StoreAccess,
  ) {}

  async execute({ body, who }: PutStoreItem): Promise<void> {
    requireValidNamespace(body.namespace, ['body', 'namespace']);
    const { value: asked, filters } = await this.access.authorize(who, 'put', {
      namespace: body.namespace,
      key: body.key,
      value: body.value,
    });
    requireValidNamespace(asked.namespace, ['body', 'namespace']);
    if (filters) {
      const existing = await this.store.get(asked.namespace, asked.key, { refreshTtl: false });
      this.access.requireWritable(existing, asked, filters);
    }
    await this.store.write([
      {
        namespace: asked.namespace,
        key: asked.key,
        value: asked.value,
        ...(body.index === undefined ? {} : { index: body.index }),
        ...(body.ttl === undefined ? {} : { ttlMinutes: body.ttl }),
      },
    ]);
  }
}
