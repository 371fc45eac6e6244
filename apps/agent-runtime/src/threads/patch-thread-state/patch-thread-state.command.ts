import { Command } from '@nestjs/cqrs';
import type { JsonObject } from '#libs/event-store';

/** Metadata merged into that of a thread's latest checkpoint. */
export class PatchThreadState extends Command<void> {
  constructor(
    readonly threadId: string,
    readonly metadata: JsonObject,
  ) {
    super();
  }
}
