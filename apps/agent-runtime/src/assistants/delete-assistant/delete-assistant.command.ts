import { Command } from '@nestjs/cqrs';

/** The assistant goes, with its crons, and with `withThreads` the threads made through it. */
export class DeleteAssistant extends Command<void> {
  constructor(
    readonly assistantId: string,
    readonly now: string,
    readonly withThreads: boolean,
  ) {
    super();
  }
}
