import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { OwnedResources } from '../../common/owned-resources.js';
import { ThreadCommands } from '../../threads/thread-commands.js';
import { AssistantCommands } from '../assistant-commands.js';
import { DeleteAssistant } from './delete-assistant.command.js';

@CommandHandler(DeleteAssistant)
export class DeleteAssistantHandler implements ICommandHandler<DeleteAssistant> {
  constructor(
    @Inject(AssistantCommands) private readonly assistants: AssistantCommands,
    @Inject(OwnedResources) private readonly owned: OwnedResources,
    @Inject(ThreadCommands) private readonly threads: ThreadCommands,
  ) {}

  async execute({ assistantId, now, withThreads }: DeleteAssistant): Promise<void> {
    await this.assistants.handle(assistantId, { kind: 'delete', now });
    await this.owned.deleteOf({ assistantId }, now);
    if (withThreads) await this.threads.deleteCreatedThrough(assistantId, now);
  }
}
