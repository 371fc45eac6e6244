import { CommandBus } from '@nestjs/cqrs';
import { Inject, Injectable } from '@nestjs/common';
import type { AgentCard } from '@a2a-js/sdk';
import { AssistantGraphs } from '../assistants/assistant-graphs.service.js';
import { AssistantsService } from '../assistants/assistants.service.js';
import type { AuthContext } from '../auth/custom-auth.js';
import { RequestAuthorization } from '../authorization/request-authorization.js';
import { RunsService } from '../runs/runs.service.js';
import { A2aRunCreation } from './a2a-run-creation.js';
import { agentCardOf } from './agent-card.js';
import { MessageAdmissions } from './message-admissions.js';
import { RunAgentExecutor } from './run-agent-executor.js';
import { RunRequestHandler } from './run-request-handler.js';
import { RunTaskStore } from './run-task-store.js';
import { RunTasks } from './run-tasks.js';

/** The URL of an assistant's A2A endpoint, from its id. */
export type EndpointOf = (assistantId: string) => string;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Each assistant an A2A agent: its card, and per request the SDK's request handler over the
 * assistant's runs. Nothing is kept between requests: a task on its event bus lives as long as
 * the request that runs it, and is read from the runs by any other.
 */
@Injectable()
export class A2aAgents {
  constructor(
    @Inject(AssistantsService) private readonly assistants: AssistantsService,
    @Inject(AssistantGraphs) private readonly graphs: AssistantGraphs,
    @Inject(RunsService) private readonly runs: RunsService,
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(RequestAuthorization) private readonly authorization: RequestAuthorization,
    @Inject(A2aRunCreation) private readonly creation: A2aRunCreation,
  ) {}

  /** The assistant's card (404 without it), its skill naming the graph's input fields. */
  async card(
    assistantIdOrGraph: string,
    endpointOf: EndpointOf,
    who: AuthContext | undefined,
  ): Promise<AgentCard> {
    return (await this.describe(assistantIdOrGraph, endpointOf, who, true)).card;
  }

  /** The SDK's request handler for one request to the assistant's endpoint. */
  async handler(
    assistantIdOrGraph: string,
    endpointOf: EndpointOf,
    who: AuthContext | undefined,
  ): Promise<RunRequestHandler> {
    const { assistantId, card } = await this.describe(assistantIdOrGraph, endpointOf, who, false);
    const tasks = new RunTasks(this.runs, this.commands, this.authorization, assistantId);
    const admissions = new MessageAdmissions(assistantId, this.creation, tasks);
    const executor = new RunAgentExecutor(who, admissions, this.creation, this.runs, tasks);
    return new RunRequestHandler(card, new RunTaskStore(tasks), executor, admissions);
  }

  private async describe(
    assistantIdOrGraph: string,
    endpointOf: EndpointOf,
    who: AuthContext | undefined,
    detailed: boolean,
  ): Promise<{ assistantId: string; card: AgentCard }> {
    const { assistant_id: assistantId } = await this.assistants.resolve(assistantIdOrGraph);
    const spec = { resource: 'assistants', action: 'read' } as const;
    await this.authorization.authorize(who, spec, { assistantId }, {});
    const assistant = await this.assistants.get(assistantId);
    const inputFields = detailed ? await this.inputFields(assistantId) : undefined;
    const subject = {
      graphId: assistant.graph_id,
      name: assistant.name,
      description: assistant.description,
      version: assistant.version,
      ...(inputFields ? { inputFields } : {}),
    };
    return { assistantId, card: agentCardOf(subject, endpointOf(assistantId)) };
  }

  private async inputFields(assistantId: string): Promise<string[] | undefined> {
    try {
      const schema: unknown = (await this.graphs.schemas(assistantId)).input_schema;
      return isRecord(schema) && isRecord(schema.properties)
        ? Object.keys(schema.properties)
        : undefined;
    } catch {
      return undefined;
    }
  }
}
