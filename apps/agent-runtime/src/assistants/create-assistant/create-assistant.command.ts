import { Command } from '@nestjs/cqrs';
import type { JsonObject } from '#libs/domain';
import type { AssistantFields } from '../assistant.decider.js';
import type { Assistant } from '../assistant.resource.js';

/** An assistant of a served graph, at the given id (`if_exists`: refuse, or keep the one there). */
export class CreateAssistant extends Command<Assistant> {
  constructor(
    readonly assistantId: string,
    readonly graphId: string,
    readonly fields: AssistantFields,
    readonly ifExists: 'raise' | 'do_nothing',
    readonly now: string,
    /** Who asked for it, recorded on its event. */
    readonly actor: JsonObject,
  ) {
    super();
  }
}
