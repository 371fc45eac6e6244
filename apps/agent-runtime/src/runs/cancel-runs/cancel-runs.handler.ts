import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { RunCommands } from '../run-commands.js';
import { CancelRuns } from './cancel-runs.command.js';

@CommandHandler(CancelRuns)
export class CancelRunsHandler implements ICommandHandler<CancelRuns> {
  constructor(@Inject(RunCommands) private readonly runs: RunCommands) {}

  execute({ selection, action, now }: CancelRuns): Promise<void> {
    return this.runs.cancelMany(selection, action, now);
  }
}
