import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CronRemoval } from '../cron-removal.js';
import { DeleteCron } from './delete-cron.command.js';

@CommandHandler(DeleteCron)
export class DeleteCronHandler implements ICommandHandler<DeleteCron> {
  constructor(@Inject(CronRemoval) private readonly removal: CronRemoval) {}

  execute({ cronId, now }: DeleteCron): Promise<void> {
    return this.removal.delete(cronId, now);
  }
}
