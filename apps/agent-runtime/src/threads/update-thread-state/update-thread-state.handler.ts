import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { checkpointAddress } from '../checkpoint-address.js';
import { ThreadStateUpdates, type StateUpdated } from '../thread-state-updates.service.js';
import { UpdateThreadState } from './update-thread-state.command.js';

@CommandHandler(UpdateThreadState)
export class UpdateThreadStateHandler implements ICommandHandler<UpdateThreadState> {
  constructor(@Inject(ThreadStateUpdates) private readonly updates: ThreadStateUpdates) {}

  execute({ threadId, body, now }: UpdateThreadState): Promise<StateUpdated> {
    return this.updates.update(
      threadId,
      {
        values: body.values,
        // Null is not given, as the SDK sends an absent option.
        asNode: body.as_node ?? undefined,
        checkpoint: checkpointAddress(body.checkpoint),
        checkpointId: body.checkpoint_id ?? undefined,
      },
      now,
    );
  }
}
