import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { requireServedGraph } from '../../common/graph-availability.js';
import { GraphCatalog } from '../../common/runtime-tokens.js';
import { AssistantCommands } from '../assistant-commands.js';
import type { Assistant } from '../assistant.resource.js';
import { CreateAssistant } from './create-assistant.command.js';

@CommandHandler(CreateAssistant)
export class CreateAssistantHandler implements ICommandHandler<CreateAssistant> {
  constructor(
    @Inject(AssistantCommands) private readonly assistants: AssistantCommands,
    @Inject(GraphCatalog) private readonly graphs: GraphCatalog,
  ) {}

  execute(create: CreateAssistant): Promise<Assistant> {
    requireServedGraph(this.graphs, create.graphId);
    return this.assistants.assistantAfter(
      create.assistantId,
      {
        kind: 'create',
        assistant_id: create.assistantId,
        graph_id: create.graphId,
        fields: create.fields,
        if_exists: create.ifExists,
        now: create.now,
      },
      { metadata: { actor: create.actor } },
    );
  }
}
