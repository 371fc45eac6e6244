import type { AssignedDeployment } from '#libs/listener-protocol';
import { nextTask, type DeploymentTask, type WorkerMemory } from '../domain/deployment-task.js';
import type { DeploymentTasks } from './deployment-tasks.js';
import { messageOf, revisionFailureOf } from './failures.js';
import type { ListenerDeps } from './listener-deps.js';
import { retrying } from './retrying.js';

/**
 * Works for one deployment: takes each assignment of it, starts the task it calls for (giving up
 * the one under way), tries a task again after a failure of the moment, and reports a failure of
 * the revision itself. What it remembers is what nextTask decides from.
 */
export class DeploymentWorker {
  private memory: WorkerMemory = {};
  private current:
    { readonly controller: AbortController; readonly done: Promise<void> } | undefined;

  constructor(
    private readonly deps: ListenerDeps,
    private readonly tasks: DeploymentTasks,
  ) {}

  offer(assigned: AssignedDeployment): void {
    const task = nextTask(assigned, this.memory);
    if (!task) return;
    this.current?.controller.abort();
    const controller = new AbortController();
    this.memory = { ...this.memory, running: task };
    this.current = { controller, done: this.run(task, assigned, controller) };
  }

  /** Gives up the task under way, and waits until it has stopped. */
  async stop(): Promise<void> {
    const current = this.current;
    current?.controller.abort();
    await current?.done;
  }

  private async run(
    task: DeploymentTask,
    assigned: AssignedDeployment,
    controller: AbortController,
  ): Promise<void> {
    const { signal } = controller;
    const { log, retryMs } = this.deps;
    const fields = { deployment_id: assigned.deployment_id, task: task.kind };
    try {
      await retrying(() => this.perform(task, assigned, controller), {
        delays: retryMs,
        signal,
        onRetry: (error, wait) => {
          log.warn(fields, `${task.kind} stopped, again in ${wait} ms: ${messageOf(error)}`);
        },
      });
    } catch (error) {
      const failure = revisionFailureOf(error);
      if (signal.aborted || !failure) return;
      if (task.kind === 'roll_out') {
        await this.tasks.reportFailure(assigned, failure, signal).catch(() => undefined);
      } else {
        log.error(fields, `${task.kind} failed: ${failure.message}`);
      }
    }
    this.finished(task, controller);
  }

  private perform(
    task: DeploymentTask,
    assigned: AssignedDeployment,
    controller: AbortController,
  ): Promise<void> {
    const applied = (revisionId: string): void => {
      if (this.current?.controller === controller)
        this.memory = { ...this.memory, applied: revisionId };
    };
    switch (task.kind) {
      case 'roll_out':
        return this.tasks.rollOut(assigned, controller.signal, applied);
      case 'keep_applied':
        return this.tasks.keepApplied(assigned, applied);
      case 'tear_down':
        return this.tasks.tearDown(assigned, controller.signal);
    }
  }

  private finished(task: DeploymentTask, controller: AbortController): void {
    if (controller.signal.aborted || this.current?.controller !== controller) return;
    this.memory = { ...this.memory, running: undefined, finished: task };
  }
}
