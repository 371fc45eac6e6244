import { Command } from '@nestjs/cqrs';
import type { RunCaller } from '../../auth/run-caller.js';
import type { CreateRunDto } from '../create-run/create-run.dto.js';
import type { Run } from '../run.resource.js';

/** Stateless runs, queued one after another, each validated already. */
export class CreateRunBatch extends Command<Run[]> {
  constructor(
    readonly payloads: readonly CreateRunDto[],
    readonly now: string,
    readonly caller?: RunCaller,
  ) {
    super();
  }
}
