import type { Provider } from '@nestjs/common';
import { AssistantCommands } from './assistant-commands.js';
import { AssistantGraphs } from './assistant-graphs.service.js';
import { AssistantsService } from './assistants.service.js';
import { CreateAssistantHandler } from './create-assistant/create-assistant.handler.js';
import { DefaultAssistants } from './default-assistants.js';
import { DeleteAssistantHandler } from './delete-assistant/delete-assistant.handler.js';
import { SetLatestVersionHandler } from './set-latest-version/set-latest-version.handler.js';
import { UpdateAssistantHandler } from './update-assistant/update-assistant.handler.js';

/** The assistants' part of the runtime module: their commands' handlers, their queries. */
export const ASSISTANT_PROVIDERS: Provider[] = [
  AssistantCommands,
  AssistantsService,
  AssistantGraphs,
  DefaultAssistants,
  CreateAssistantHandler,
  UpdateAssistantHandler,
  SetLatestVersionHandler,
  DeleteAssistantHandler,
];
