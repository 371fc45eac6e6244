import { Inject, Injectable } from '@nestjs/common';
import { notFound } from '#libs/domain';
import { AggregateCommands, EventStore, type CommandContext } from '#libs/event-store';
import {
  assistantDecider,
  type AssistantCommand,
  type AssistantState,
} from './assistant.decider.js';
import { assistantStream, type AssistantEvent } from './assistant.events.js';
import { assistantResource, type Assistant } from './assistant.resource.js';
import { rowOf } from './assistants.projection.js';

/** The assistant aggregate's command side, bound once for the handlers of its commands. */
@Injectable()
export class AssistantCommands extends AggregateCommands<
  AssistantState,
  AssistantCommand,
  AssistantEvent
> {
  constructor(@Inject(EventStore) store: EventStore) {
    super({ store, decider: assistantDecider, streamOf: assistantStream });
  }

  /** Decides the command; answers the assistant as it is after it. */
  async assistantAfter(
    assistantId: string,
    command: AssistantCommand,
    context: CommandContext = {},
  ): Promise<Assistant> {
    const { state } = await this.handle(assistantId, command, context);
    const row = rowOf(state);
    if (!row) throw notFound('Assistant not found');
    return assistantResource(row);
  }
}
