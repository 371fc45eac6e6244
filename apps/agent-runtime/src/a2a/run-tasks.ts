import type { Task } from '@a2a-js/sdk';
import { DomainError } from '#libs/domain';
import { isUuid } from '../common/uuid5.js';
import type { AuthContext } from '../auth/custom-auth.js';
import type { RequestAuthorization } from '../authorization/request-authorization.js';
import type { RunsService } from '../runs/runs.service.js';
import type { Run } from '../runs/run.resource.js';
import { taskOfRun } from './task-of-run.js';

/** The run metadata key naming the task a run continues (a resume of an interrupted task). */
export const TASK_ID_KEY = 'a2a_task_id';
/** How far back in a thread's runs a task's latest run is looked for. */
const RUNS_LOOKED_AT = 100;

/** A task's current run: the run of its id, or the latest run that resumed it. */
export interface TaskRun {
  readonly taskId: string;
  readonly threadId: string;
  readonly run: Partial<Run>;
}

const isNotFound = (error: unknown): boolean =>
  error instanceof DomainError && error.code === 'not_found';

/**
 * A2A tasks read from the runtime's runs: a task is the run of its id, continued by the runs
 * that resumed it on the same thread; nothing about it is kept anywhere else.
 */
export class RunTasks {
  constructor(
    private readonly runs: RunsService,
    private readonly authorization: RequestAuthorization,
    private readonly assistantId: string,
  ) {}

  /** The task's current run, or undefined for a task unknown here (or not the caller's). */
  async currentRun(taskId: string, who: AuthContext | undefined): Promise<TaskRun | undefined> {
    if (!isUuid(taskId)) return undefined;
    try {
      const threadId = await this.runs.threadOfRun(taskId);
      await this.authorization.authorize(
        who,
        { resource: 'threads', action: 'read' },
        { threadId },
        {},
      );
      const runs = await this.runs.list(threadId, { limit: RUNS_LOOKED_AT, offset: 0 });
      const origin = runs.find((run) => run.run_id === taskId);
      if (origin?.assistant_id !== this.assistantId) return undefined;
      const run = runs.find(
        (one) => one.run_id === taskId || one.metadata?.[TASK_ID_KEY] === taskId,
      );
      return run && { taskId, threadId, run };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /** The task as its current run shows it. */
  async task(taskId: string, who: AuthContext | undefined): Promise<Task | undefined> {
    const current = await this.currentRun(taskId, who);
    if (!current) return undefined;
    const { run, threadId } = current;
    const runId = run.run_id ?? taskId;
    const status = run.status ?? 'pending';
    const finished =
      status === 'pending' || status === 'running'
        ? undefined
        : await this.runs.waitForFinish(runId);
    return taskOfRun({ taskId, contextId: threadId }, { runId, status }, finished);
  }

  /** Cancels the task's current run; resolves once it has ended. */
  async cancel(taskId: string, who: AuthContext | undefined): Promise<void> {
    const current = await this.currentRun(taskId, who);
    const runId = current?.run.run_id;
    if (!current || !runId) return;
    const params = { threadId: current.threadId, runId };
    await this.authorization.authorize(who, { resource: 'threads', action: 'update' }, params, {});
    await this.runs.cancel(current.threadId, runId, 'interrupt', new Date().toISOString(), true);
  }
}
