import { Command } from '@nestjs/cqrs';
import type { AuthContext } from '../../auth/custom-auth.js';
import type { PutStoreItemDto } from './put-store-item.dto.js';

/** An item written at its namespace and key, as the application's auth allows it. */
export class PutStoreItem extends Command<void> {
  constructor(
    readonly body: PutStoreItemDto,
    /** The user of the application's auth the request came from, when it has one. */
    readonly who: AuthContext | undefined,
  ) {
    super();
  }
}
