import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AssistantCommands } from '../assistant-commands.js';
import type { Assistant } from '../assistant.resource.js';
import { SetLatestVersion } from './set-latest-version.command.js';

@CommandHandler(SetLatestVersion)
export class SetLatestVersionHandler implements ICommandHandler<SetLatestVersion> {
  constructor(@Inject(AssistantCommands) private readonly assistants: AssistantCommands) {}

  execute({ assistantId, version, now, actor }: SetLatestVersion): Promise<Assistant> {
    return this.assistants.assistantAfter(
      assistantId,
      { kind: 'set_latest', version, now },
      { metadata: { actor } },
    );
  }
}
