import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { RunCommands } from '../run-commands.js';
import { CancelRun } from './cancel-run.command.js';

@CommandHandler(CancelRun)
export class CancelRunHandler implements ICommandHandler<CancelRun> {
  constructor(@Inject(RunCommands) private readonly runs: RunCommands) {}

  execute({ threadId, runId, action, now, wait }: CancelRun): Promise<void> {
    return this.runs.cancel(threadId, runId, action, now, wait);
  }
}
