import { Inject, Injectable } from '@nestjs/common';
import { AggregateCommands, EventStore } from '#libs/event-store';
import { cronDecider, type CronCommand, type CronState } from './cron.decider.js';
import { cronStream, type CronEvent } from './cron.events.js';

/** The cron aggregate's command side, bound once for the services that change crons. */
@Injectable()
export class CronCommands extends AggregateCommands<CronState, CronCommand, CronEvent> {
  constructor(@Inject(EventStore) store: EventStore) {
    super({ store, decider: cronDecider, streamOf: cronStream });
  }
}
