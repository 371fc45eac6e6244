import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { ThreadStateUpdates } from '../thread-state-updates.service.js';
import { PatchThreadState } from './patch-thread-state.command.js';

@CommandHandler(PatchThreadState)
export class PatchThreadStateHandler implements ICommandHandler<PatchThreadState> {
  constructor(@Inject(ThreadStateUpdates) private readonly updates: ThreadStateUpdates) {}

  execute({ threadId, metadata }: PatchThreadState): Promise<void> {
    return this.updates.patchMetadata(threadId, metadata);
  }
}
