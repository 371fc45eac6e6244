/** A step of a deployment's workflow that is tried again until it succeeds. */
export type RetriedStep = 'tear_down' | 'restart_active';

const FIRST_RETRY_MS: Readonly<Record<RetriedStep, number>> = {
  tear_down: 2_000,
  restart_active: 1_000,
};
const LONGEST_RETRY_MS = 5 * 60_000;

/** How long to wait before the attempt after `failures` failed ones: doubling, at most 5 min. */
export function retryDelayMs(step: RetriedStep, failures: number): number {
  return Math.min(FIRST_RETRY_MS[step] * 2 ** Math.max(0, failures - 1), LONGEST_RETRY_MS);
}

const WHAT_FAILED: Readonly<Record<RetriedStep, string>> = {
  tear_down: 'Deleting the deployment failed',
  restart_active: 'Starting the live revision again failed',
};

/** What a failed attempt says, in the deployment's logs and the operator's. */
export function retryLine(
  step: RetriedStep,
  failures: number,
  reason: string,
  delayMs: number,
): string {
  return (
    `${WHAT_FAILED[step]} (attempt ${failures}): ${reason}; ` +
    `trying again in ${Math.round(delayMs / 1000)} s`
  );
}

/** What the latest revision's status says while its deployment cannot finish deleting. */
export const tearDownFailedMessage = (reason: string): string =>
  `${WHAT_FAILED.tear_down}: ${reason}; it is tried again until it succeeds (see the deploy log)`;

/**
 * The deployments one step failed for, and when each is tried again: the step is retried until it
 * succeeds (or the control plane stops; the next one begins again from the log). A runtime that
 * cannot start for a moment's reason (its database restarting, a port taken) serves once it can.
 */
export class StepRetries {
  private readonly failures = new Map<string, number>();
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly step: RetriedStep,
    private readonly retry: (deploymentId: string) => void,
  ) {}

  /** Records a failure; returns what to log. The deployment is retried after a while. */
  failed(deploymentId: string, reason: string): string {
    const failures = (this.failures.get(deploymentId) ?? 0) + 1;
    this.failures.set(deploymentId, failures);
    const delayMs = retryDelayMs(this.step, failures);
    clearTimeout(this.timers.get(deploymentId));
    const timer = setTimeout(() => {
      this.timers.delete(deploymentId);
      this.retry(deploymentId);
    }, delayMs);
    timer.unref();
    this.timers.set(deploymentId, timer);
    return retryLine(this.step, failures, reason, delayMs);
  }

  succeeded(deploymentId: string): void {
    this.failures.delete(deploymentId);
    clearTimeout(this.timers.get(deploymentId));
    this.timers.delete(deploymentId);
  }

  stopAll(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}
