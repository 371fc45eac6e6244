import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { RunCommands, type CreatedRun } from '../run-commands.js';
import { CreateRun } from './create-run.command.js';

@CommandHandler(CreateRun)
export class CreateRunHandler implements ICommandHandler<CreateRun> {
  constructor(@Inject(RunCommands) private readonly runs: RunCommands) {}

  execute({ threadId, body, now, caller }: CreateRun): Promise<CreatedRun> {
    return this.runs.create(threadId, body, now, caller);
  }
}
