import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { requireServedGraph } from '../../common/graph-availability.js';
import { GraphCatalog } from '../../common/runtime-tokens.js';
import { AssistantCommands } from '../assistant-commands.js';
import type { Assistant } from '../assistant.resource.js';
import { UpdateAssistant } from './update-assistant.command.js';

@CommandHandler(UpdateAssistant)
export class UpdateAssistantHandler implements ICommandHandler<UpdateAssistant> {
  constructor(
    @Inject(AssistantCommands) private readonly assistants: AssistantCommands,
    @Inject(GraphCatalog) private readonly graphs: GraphCatalog,
  ) {}

  execute({ assistantId, fields, now, actor }: UpdateAssistant): Promise<Assistant> {
    if (fields.graph_id !== undefined) requireServedGraph(this.graphs, fields.graph_id);
    return this.assistants.assistantAfter(
      assistantId,
      { kind: 'update', fields, now },
      { metadata: { actor } },
    );
  }
}
