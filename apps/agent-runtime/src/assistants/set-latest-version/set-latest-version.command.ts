import { Command } from '@nestjs/cqrs';
import type { JsonObject } from '#libs/domain';
import type { Assistant } from '../assistant.resource.js';

/** One of the assistant's versions becomes the one it runs. */
export class SetLatestVersion extends Command<Assistant> {
  constructor(
    readonly assistantId: string,
    readonly version: number,
    readonly now: string,
    /** Who asked for it, recorded on its event. */
    readonly actor: JsonObject,
  ) {
    super();
  }
}
