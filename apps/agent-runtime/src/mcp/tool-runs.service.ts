import { Inject, Injectable } from '@nestjs/common';
import type { JsonObject, JsonValue } from '#libs/event-store';
import type { AuthContext } from '../auth/custom-auth.js';
import { runCallerOf } from '../auth/run-caller.js';
import { RequestAuthorization } from '../authorization/request-authorization.js';
import { RunsService, type RunResult } from '../runs/runs.service.js';
import { CreateRun } from '../runs/create-run/create-run.command.js';
import type { CreateRunDto } from '../runs/create-run/create-run.dto.js';
import { CommandBus } from '@nestjs/cqrs';
import { CreateThread } from '../threads/create-thread/create-thread.command.js';
import type { CreateThreadDto } from '../threads/create-thread/create-thread.dto.js';
import type { AssistantTool } from './tool-names.js';

const CREATE_THREAD = { resource: 'threads', action: 'create' } as const;
const CREATE_RUN = { resource: 'threads', action: 'create_run' } as const;
const now = (): string => new Date().toISOString();

/** A tool call's run: where it ran, what `runs/wait` would have answered, what it waits for. */
export interface ToolRun {
  readonly threadId: string;
  readonly runId: string;
  readonly result: RunResult;
  /** The interrupts the run stopped at, by task (empty when it did not). */
  readonly interrupts: JsonObject;
}

/** What a call asks the run for: the graph's input, or the answer to an interrupt. */
export type ToolRunRequest = { readonly input: JsonObject } | { readonly resume: JsonValue };

/**
 * A tool call as an ordinary run of its assistant, on the thread named or a new one, asked of
 * the application's auth handlers as `POST /threads` and `POST /threads/{id}/runs/wait` are.
 */
@Injectable()
export class ToolRuns {
  constructor(
    @Inject(RunsService) private readonly runs: RunsService,
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(RequestAuthorization) private readonly authorizer: RequestAuthorization,
  ) {}

  async run(
    who: AuthContext | undefined,
    tool: AssistantTool,
    request: ToolRunRequest,
    threadId: string | undefined,
    signal: AbortSignal,
  ): Promise<ToolRun> {
    const thread = threadId ?? (await this.newThread(who, tool));
    const body: Record<string, unknown> = {
      assistant_id: tool.assistant.assistant_id,
      ...('resume' in request ? { command: { resume: request.resume } } : request),
    };
    await this.authorizer.authorize(who, CREATE_RUN, { threadId: thread }, body);
    const run = await this.commands.execute(
      new CreateRun(thread, body as unknown as CreateRunDto, now(), runCallerOf(who)),
    );
    const finished = await this.runs.waitForFinish(run.data.run_id, { justCreated: true, signal });
    const result: RunResult =
      finished.status === 'error' ? { __error__: finished.error } : finished.values;
    return { threadId: thread, runId: run.data.run_id, result, interrupts: finished.interrupts };
  }

  private async newThread(who: AuthContext | undefined, tool: AssistantTool): Promise<string> {
    const body: Record<string, unknown> = {};
    await this.authorizer.authorize(who, CREATE_THREAD, {}, body);
    const request: CreateThreadDto = { ...body, graph_id: tool.assistant.graph_id };
    const thread = await this.commands.execute(new CreateThread(request, now()));
    return thread.thread_id;
  }
}
