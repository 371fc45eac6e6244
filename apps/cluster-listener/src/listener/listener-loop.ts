import { setTimeout as sleep } from 'node:timers/promises';
import type { AssignedDeployment } from '#libs/listener-protocol';
import { DeploymentTasks } from './deployment-tasks.js';
import { DeploymentWorker } from './deployment-worker.js';
import { messageOf } from './failures.js';
import type { ListenerDeps } from './listener-deps.js';

/** How long each poll asks the control plane to wait for a change. */
export const POLL_WAIT_SECONDS = 25;

/**
 * The listener's long poll: each answer goes to the worker of each deployment in it; a worker
 * whose deployment left the answer is stopped. A failed poll is tried again, later each time up
 * to `retryMs.longest`, so the listener outlasts a restart of the control plane.
 */
export class ListenerLoop {
  private readonly workers = new Map<string, DeploymentWorker>();
  private readonly tasks: DeploymentTasks;

  constructor(private readonly deps: ListenerDeps) {
    this.tasks = new DeploymentTasks(deps);
  }

  async run(signal: AbortSignal): Promise<void> {
    const { client, listenerId, log, retryMs } = this.deps;
    const stopped = (): boolean => signal.aborted;
    let etag: string | undefined;
    let wait = retryMs.first;
    while (!stopped()) {
      try {
        const answer = await client.assignments(listenerId, {
          after: etag,
          waitSeconds: POLL_WAIT_SECONDS,
          signal,
        });
        if (answer.etag !== etag) this.dispatch(answer.deployments);
        etag = answer.etag;
        wait = retryMs.first;
      } catch (error) {
        if (stopped()) break;
        log.warn(`polling the control plane failed, again in ${wait} ms: ${messageOf(error)}`);
        await sleep(wait, undefined, { signal }).catch(() => undefined);
        wait = Math.min(wait * 2, retryMs.longest);
      }
    }
    await Promise.all([...this.workers.values()].map((worker) => worker.stop()));
  }

  private dispatch(deployments: readonly AssignedDeployment[]): void {
    const assigned = new Set(deployments.map((deployment) => deployment.deployment_id));
    for (const [id, worker] of this.workers) {
      if (assigned.has(id)) continue;
      this.workers.delete(id);
      void worker.stop();
    }
    for (const deployment of deployments) {
      let worker = this.workers.get(deployment.deployment_id);
      if (!worker) {
        worker = new DeploymentWorker(this.deps, this.tasks);
        this.workers.set(deployment.deployment_id, worker);
      }
      worker.offer(deployment);
    }
  }
}
