import type { AssignedDeployment } from '#libs/listener-protocol';
import { DeploymentTasks } from './deployment-tasks.js';
import { DeploymentWorker } from './deployment-worker.js';
import { messageOf } from './failures.js';
import type { ListenerDeps } from './listener-deps.js';
import { retrying } from './retrying.js';

/** How long each poll asks the control plane to wait for a change. */
export const POLL_WAIT_SECONDS = 25;

/**
 * The listener's long poll: each answer goes to the worker of each deployment in it; a worker
 * whose deployment left the answer is stopped. A poll that fails for the moment is tried again,
 * later each time up to `retryMs.longest`, so the listener outlasts a restart of the control plane.
 */
export class ListenerLoop {
  private readonly workers = new Map<string, DeploymentWorker>();
  private readonly tasks: DeploymentTasks;

  constructor(private readonly deps: ListenerDeps) {
    this.tasks = new DeploymentTasks(deps);
  }

  /**
   * Polls until `signal` aborts; a refusal for good (the key revoked, the listener gone) ends
   * the loop with it, for the process to say and stop.
   */
  async run(signal: AbortSignal): Promise<void> {
    const { client, listenerId, log, retryMs } = this.deps;
    let etag: string | undefined;
    try {
      for (;;) {
        const answer = await retrying(
          () =>
            client.assignments(listenerId, { after: etag, waitSeconds: POLL_WAIT_SECONDS, signal }),
          {
            delays: retryMs,
            signal,
            onRetry: (error, wait) => {
              log.warn(
                `polling the control plane failed, again in ${wait} ms: ${messageOf(error)}`,
              );
            },
          },
        );
        if (answer.etag !== etag) this.dispatch(answer.deployments);
        etag = answer.etag;
      }
    } catch (error) {
      if (!signal.aborted) throw error;
    } finally {
      await Promise.all([...this.workers.values()].map((worker) => worker.stop()));
    }
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
