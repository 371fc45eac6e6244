import type { Provider } from '@nestjs/common';
import { OwnedResources } from '../common/owned-resources.js';
import { CronCommands } from './cron-commands.js';
import { CronRemoval } from './cron-removal.js';
import { CRON_POLL_INTERVAL_MS, CronScheduler } from './cron.scheduler.js';
import { CronsService } from './crons.service.js';
import { CreateCronHandler } from './create-cron/create-cron.handler.js';
import { DeleteCronHandler } from './delete-cron/delete-cron.handler.js';
import { UpdateCronHandler } from './update-cron/update-cron.handler.js';

/** The crons' part of the runtime module: a cron deleted with what owns it, fired on its schedule. */
export function cronProviders(pollSeconds: number): Provider[] {
  return [
    CronsService,
    CronCommands,
    CronRemoval,
    { provide: OwnedResources, useExisting: CronRemoval },
    { provide: CRON_POLL_INTERVAL_MS, useValue: pollSeconds * 1000 },
    CronScheduler,
    CreateCronHandler,
    UpdateCronHandler,
    DeleteCronHandler,
  ];
}
