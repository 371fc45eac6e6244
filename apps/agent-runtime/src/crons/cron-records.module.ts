import { Global, Module } from '@nestjs/common';
import { OwnedResources } from '../common/owned-resources.js';
import { CronCommands } from './cron-commands.js';
import { CronRemoval } from './cron-removal.js';

/**
 * The cron aggregate's command side, global: a deleted assistant or thread takes its crons with
 * it (OwnedResources, in common/) without its feature depending on the crons.
 */
@Global()
@Module({
  providers: [CronCommands, CronRemoval, { provide: OwnedResources, useExisting: CronRemoval }],
  exports: [CronCommands, CronRemoval, OwnedResources],
})
export class CronRecordsModule {}
