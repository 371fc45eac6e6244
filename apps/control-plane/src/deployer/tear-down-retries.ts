const FIRST_RETRY_MS = 2_000;
const LONGEST_RETRY_MS = 5 * 60_000;

/** How long to wait before the attempt after `failures` failed ones: doubling, at most 5 min. */
export function tearDownRetryDelayMs(failures: number): number {
  return Math.min(FIRST_RETRY_MS * 2 ** Math.max(0, failures - 1), LONGEST_RETRY_MS);
}

/** What a failed attempt to delete a deployment says, in its logs and the operator's. */
export function tearDownFailureLine(failures: number, reason: string, delayMs: number): string {
  return (
    `Deleting the deployment failed (attempt ${failures}): ${reason}; ` +
    `trying again in ${Math.round(delayMs / 1000)} s`
  );
}

/**
 * The deployments whose tear-down failed, and when each is tried again: a deployment being
 * deleted is retried until its tear-down succeeds (or the control plane stops; the next one
 * begins again from the log).
 */
export class TearDownRetries {
  private readonly failures = new Map<string, number>();
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(private readonly retry: (deploymentId: string) => void) {}

  /** Records a failure; returns what to log. The deployment is retried after a while. */
  failed(deploymentId: string, reason: string): string {
    const failures = (this.failures.get(deploymentId) ?? 0) + 1;
    this.failures.set(deploymentId, failures);
    const delayMs = tearDownRetryDelayMs(failures);
    clearTimeout(this.timers.get(deploymentId));
    const timer = setTimeout(() => {
      this.timers.delete(deploymentId);
      this.retry(deploymentId);
    }, delayMs);
    timer.unref();
    this.timers.set(deploymentId, timer);
    return tearDownFailureLine(failures, reason, delayMs);
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
