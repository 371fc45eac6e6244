import { Command } from '@nestjs/cqrs';
import type { AuthContext } from '../../auth/custom-auth.js';
import type { DeleteStoreItemDto } from './delete-store-item.dto.js';

/** The item at a namespace and key deleted, as the application's auth allows it. */
export class DeleteStoreItem extends Command<void> {
  constructor(
    readonly body: DeleteStoreItemDto,
    /** The user of the application's auth the request came from, when it has one. */
    readonly who: AuthContext | undefined,
  ) {
    super();
  }
}
