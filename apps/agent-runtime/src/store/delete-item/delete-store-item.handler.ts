import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { StoreAccess } from '../store-access.js';
import { requireValidNamespace } from '../store-namespace.js';
import { StoreService } from '../store.service.js';
import { DeleteStoreItem } from './delete-store-item.command.js';

@CommandHandler(DeleteStoreItem)
export class DeleteStoreItemHandler implements ICommandHandler<DeleteStoreItem> {
  constructor(
    @Inject(StoreService) private readonly store: StoreService,
    @Inject(StoreAccess) private readonly access: StoreAccess,
  ) {}

  async execute({ body, who }: DeleteStoreItem): Promise<void> {
    requireValidNamespace(body.namespace ?? [], ['body', 'namespace']);
    const { value: asked, filters } = await this.access.authorize(who, 'delete', {
      namespace: body.namespace ?? [],
      key: body.key,
    });
    requireValidNamespace(asked.namespace, ['body', 'namespace']);
    if (filters) {
      const existing = await this.store.get(asked.namespace, asked.key, { refreshTtl: false });
      this.access.requireWritable(existing, asked, filters);
    }
    await this.store.write([{ namespace: asked.namespace, key: asked.key, value: null }]);
  }
}
