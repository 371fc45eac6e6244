import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { RunCommands } from '../run-commands.js';
import { DeleteRun } from './delete-run.command.js';

@CommandHandler(DeleteRun)
export class DeleteRunHandler implements ICommandHandler<DeleteRun> {
  constructor(@Inject(RunCommands) private readonly runs: RunCommands) {}

  execute({ threadId, runId, now }: DeleteRun): Promise<void> {
    return this.runs.delete(threadId, runId, now);
  }
}
