import { Command } from '@nestjs/cqrs';
import type { RunCaller } from '../../auth/run-caller.js';
import type { CreatedRun } from '../run-commands.js';
import type { CreateRunDto } from './create-run.dto.js';

/** A run queued on a thread, or with `threadId` null a stateless one on a temporary thread. */
export class CreateRun extends Command<CreatedRun> {
  constructor(
    readonly threadId: string | null,
    readonly body: CreateRunDto,
    readonly now: string,
    /** The user of the application's auth the run is for. */
    readonly caller?: RunCaller,
  ) {
    super();
  }
}
