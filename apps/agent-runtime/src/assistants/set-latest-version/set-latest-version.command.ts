import { Command } from '@nestjs/cqrs';
import type { Assistant } from '../assistant.resource.js';

/** One of the assistant's versions becomes the one it runs. */
export class SetLatestVersion extends Command<Assistant> {
  constructor(
    readonly assistantId: string,
    readonly version: number,
    readonly now: string,
  ) {
    super();
  }
}
