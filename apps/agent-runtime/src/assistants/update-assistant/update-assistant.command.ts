import { Command } from '@nestjs/cqrs';
import type { JsonObject } from '#libs/domain';
import type { AssistantFields } from '../assistant.decider.js';
import type { Assistant } from '../assistant.resource.js';

/** A new version of the assistant with these fields, made its latest. */
export class UpdateAssistant extends Command<Assistant> {
  constructor(
    readonly assistantId: string,
    readonly fields: AssistantFields,
    readonly now: string,
    /** Who asked for it, recorded on its event. */
    readonly actor: JsonObject,
  ) {
    super();
  }
}
