import { Inject, Injectable } from '@nestjs/common';
import { AssistantGraphs } from '../assistants/assistant-graphs.service.js';
import { AssistantsService } from '../assistants/assistants.service.js';
import type { Assistant } from '../assistants/assistant.resource.js';
import type { JsonObject } from '#libs/event-store';
import { matchesFilters, type AuthContext } from '../auth/custom-auth.js';
import { metadataOf, RequestAuthorization } from '../authorization/request-authorization.js';
import { assistantTools, type AssistantTool } from './tool-names.js';
import { toolInputSchema, type ToolInputSchema } from './tool-input-schema.js';

const PAGE = 1000;
const SEARCH = { resource: 'assistants', action: 'search', list: 'search' } as const;

/** The assistants of the deployment as MCP tools: those an assistants search gives the caller. */
@Injectable()
export class AssistantTools {
  constructor(
    @Inject(AssistantsService) private readonly assistants: AssistantsService,
    @Inject(AssistantGraphs) private readonly graphs: AssistantGraphs,
    @Inject(RequestAuthorization) private readonly authorizer: RequestAuthorization,
  ) {}

  /** Every assistant `who` may see, oldest first, each with its tool's name. */
  async visible(who: AuthContext | undefined): Promise<AssistantTool[]> {
    // The filters of the caller's auth handler, as a search by them would have them.
    const filter: { metadata?: JsonObject } = {};
    const outcome = await this.authorizer.authorize(who, SEARCH, {}, filter);
    if (outcome.answer !== undefined) return [];
    const found: Assistant[] = [];
    for (let offset = 0; ; offset += PAGE) {
      const page = (await this.assistants.search({
        metadata: filter.metadata,
        sort_by: 'created_at',
        sort_order: 'asc',
        limit: PAGE,
        offset,
      })) as Assistant[];
      found.push(...page);
      if (page.length < PAGE) break;
    }
    const filters = outcome.postFilter;
    return assistantTools(
      filters ? found.filter((assistant) => matchesFilters(metadataOf(assistant), filters)) : found,
    );
  }

  /** The tool of that name, if `who` may see it. */
  async named(who: AuthContext | undefined, name: string): Promise<AssistantTool | undefined> {
    return (await this.visible(who)).find((tool) => tool.name === name);
  }

  /** The tool's arguments: its graph's input (as `GET /assistants/{id}/schemas` gives it) and `thread_id`. */
  async inputSchema(tool: AssistantTool): Promise<ToolInputSchema> {
    const schemas = await this.graphs.schemas(tool.assistant.assistant_id);
    return toolInputSchema(schemas.input_schema);
  }
}
