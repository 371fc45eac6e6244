/**
 * The builds in progress per deployment, so that deleting a deployment ends its builds at once
 * (their commands' process groups are killed through the build's signal) instead of waiting for
 * them to time out.
 */
export class BuildCancellations {
  private readonly running = new Map<string, Set<AbortController>>();

  /** A build begins: its signal aborts when the deployment's builds are cancelled. */
  begin(deploymentId: string): { signal: AbortSignal; end: () => void } {
    const controller = new AbortController();
    const builds = this.running.get(deploymentId) ?? new Set<AbortController>();
    builds.add(controller);
    this.running.set(deploymentId, builds);
    return {
      signal: controller.signal,
      end: () => {
        builds.delete(controller);
        if (builds.size === 0 && this.running.get(deploymentId) === builds) {
          this.running.delete(deploymentId);
        }
      },
    };
  }

  /** Ends every build of the deployment in progress; returns how many there were. */
  cancel(deploymentId: string, reason: string): number {
    const builds = [...(this.running.get(deploymentId) ?? [])];
    for (const controller of builds) controller.abort(new Error(reason));
    return builds.length;
  }
}
