import type { Task } from '@a2a-js/sdk';
import { DomainError } from '#libs/domain';
import { isUuid } from '../common/uuid5.js';
import type { AuthContext } from '../auth/custom-auth.js';
import type { RequestAuthorization } from '../authorization/request-authorization.js';
import type { CommandBus } from '@nestjs/cqrs';
import type { RunsService } from '../runs/runs.service.js';
import { CancelRun } from '../runs/cancel-run/cancel-run.command.js';
import type { Run } from '../runs/run.resource.js';
import { taskOfRuns, type TaskTurn } from './task-of-run.js';

/** The run metadata key naming the task a run is part of (its first run, and each resume). */
export const TASK_ID_KEY = 'a2a_task_id';
/** How far back in a thread's runs a task's runs are looked for. */
const RUNS_LOOKED_AT = 100;

/** A task's runs on its thread, oldest first: the run of its id, then those that resumed it. */
export interface TaskRuns {
  readonly taskId: string;
  readonly threadId: string;
  readonly runs: readonly Partial<Run>[];
}

const isNotFound = (error: unknown): boolean =>
  error instanceof DomainError && error.code === 'not_found';

const hasEnded = (run: Partial<Run>): boolean =>
  run.status !== undefined && run.status !== 'pending' && run.status !== 'running';

/**
 * A2A tasks read from the runtime's runs: a task is the run of its id, continued by the runs
 * that resumed it on the same thread; nothing about it is kept anywhere else.
 */
export class RunTasks {
  constructor(
    private readonly runs: RunsService,
    private readonly commands: CommandBus,
    private readonly authorization: RequestAuthorization,
    private readonly assistantId: string,
  ) {}

  /** The task's runs, or undefined for a task unknown here (or not the caller's). */
  async runsOf(taskId: string, who: AuthContext | undefined): Promise<TaskRuns | undefined> {
    if (!isUuid(taskId)) return undefined;
    try {
      const threadId = await this.runs.threadOfRun(taskId);
      const spec = { resource: 'threads', action: 'read' } as const;
      await this.authorization.authorize(who, spec, { threadId }, {});
      const newestFirst = await this.runs.list(threadId, { limit: RUNS_LOOKED_AT, offset: 0 });
      const [origin, ...resumes] = newestFirst
        .filter((run) => run.run_id === taskId || run.metadata?.[TASK_ID_KEY] === taskId)
        .reverse();
      if (origin?.run_id !== taskId || origin.assistant_id !== this.assistantId) return undefined;
      return { taskId, threadId, runs: [origin, ...resumes] };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /** The task as its runs show it, its history rebuilt from their inputs and ends. */
  async task(taskId: string, who: AuthContext | undefined): Promise<Task | undefined> {
    const found = await this.runsOf(taskId, who);
    if (!found) return undefined;
    const turns = await Promise.all(found.runs.map((run) => this.turnOf(run)));
    const current = turns.pop();
    return current && taskOfRuns({ taskId, contextId: found.threadId }, turns, current);
  }

  /** Cancels the task's current run unless it has ended; resolves once it has. */
  async cancel(taskId: string, who: AuthContext | undefined): Promise<void> {
    const found = await this.runsOf(taskId, who);
    const current = found?.runs.at(-1);
    const runId = current?.run_id;
    if (!found || !current || !runId || hasEnded(current)) return;
    const params = { threadId: found.threadId, runId };
    await this.authorization.authorize(who, { resource: 'threads', action: 'update' }, params, {});
    const now = new Date().toISOString();
    await this.commands.execute(new CancelRun(found.threadId, runId, 'interrupt', now, true));
  }

  private async turnOf(run: Partial<Run>): Promise<TaskTurn> {
    const runId = run.run_id ?? '';
    const status = run.status ?? 'pending';
    const [created, finished] = await Promise.all([
      this.runs.createdOf(runId),
      hasEnded(run) ? this.runs.waitForFinish(runId) : undefined,
    ]);
    return { created, status, finished };
  }
}
