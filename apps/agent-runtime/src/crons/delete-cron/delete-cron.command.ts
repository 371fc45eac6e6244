import { Command } from '@nestjs/cqrs';

export class DeleteCron extends Command<void> {
  constructor(
    readonly cronId: string,
    readonly now: string,
  ) {
    super();
  }
}
