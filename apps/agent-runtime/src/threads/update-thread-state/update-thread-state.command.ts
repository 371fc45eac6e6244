import { Command } from '@nestjs/cqrs';
import type { StateUpdated } from '../thread-state-updates.service.js';
import type { UpdateThreadStateDto } from './update-thread-state.dto.js';

/** An update of a thread's state, as a node's would be, recorded as a new checkpoint. */
export class UpdateThreadState extends Command<StateUpdated> {
  constructor(
    readonly threadId: string,
    readonly body: UpdateThreadStateDto,
    readonly now: string,
  ) {
    super();
  }
}
