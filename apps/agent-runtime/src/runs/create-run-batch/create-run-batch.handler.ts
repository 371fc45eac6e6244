import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { RunCommands } from '../run-commands.js';
import type { Run } from '../run.resource.js';
import { CreateRunBatch } from './create-run-batch.command.js';

@CommandHandler(CreateRunBatch)
export class CreateRunBatchHandler implements ICommandHandler<CreateRunBatch> {
  constructor(@Inject(RunCommands) private readonly runs: RunCommands) {}

  execute({ payloads, now, caller }: CreateRunBatch): Promise<Run[]> {
    return this.runs.createBatch(payloads, now, caller);
  }
}
