import type { Jailed } from '../isolation/jailer.js';
import { DeploymentProxy } from './deployment-proxy.js';
import { RuntimeProcess, SpareRuntimes } from './runtime-process.js';
import type { UpgradeCourier } from './websocket-courier.js';

/**
 * What serves each deployment on this machine: its proxy on the deployment's own port, the
 * runtime process the proxy sends connections to, and a spare runtime for the next deploy.
 */
export class DeploymentRuntimes {
  private readonly proxies = new Map<string, DeploymentProxy>();
  private readonly active = new Map<string, RuntimeProcess>();
  private readonly spares = new SpareRuntimes();

  /**
   * `maxWebSockets`: the WebSockets each deployment's port lets through at once, handed over to
   * `courier`.
   */
  constructor(
    private readonly maxWebSockets: number,
    private readonly courier: UpgradeCourier,
  ) {}

  /** A spare is kept where runtimes are not jailed: a jail is made for one deployment. */
  startSpare(): void {
    this.spares.start();
  }

  /** The spare, or a runtime started in the given jail. */
  start(jailed: Jailed | undefined): RuntimeProcess {
    return jailed ? new RuntimeProcess(jailed) : this.spares.take();
  }

  /** `live`: the deployment has a live revision, whose runtime is about to start (again). */
  async ensureProxy(
    deploymentId: string,
    port: number,
    host: string,
    live: boolean,
  ): Promise<void> {
    if (this.proxies.has(deploymentId)) return;
    const proxy = new DeploymentProxy(this.maxWebSockets, this.courier, deploymentId);
    if (live) proxy.awaitRestart();
    await proxy.listen(port, host);
    this.proxies.set(deploymentId, proxy);
  }

  hasProxy(deploymentId: string): boolean {
    return this.proxies.has(deploymentId);
  }

  activeOf(deploymentId: string): RuntimeProcess | undefined {
    return this.active.get(deploymentId);
  }

  /**
   * Sends the deployment's new connections to the process and makes it the active one; returns
   * the one it replaces. `onExit` runs if the process dies while it is still the active one.
   */
  serve(
    deploymentId: string,
    process: RuntimeProcess,
    onExit: () => Promise<void>,
  ): RuntimeProcess | undefined {
    this.proxies.get(deploymentId)?.switchTo(process.endpoint);
    const previous = this.active.get(deploymentId);
    this.active.set(deploymentId, process);
    void process.exited.then(async () => {
      if (this.active.get(deploymentId) !== process) return;
      this.active.delete(deploymentId);
      this.proxies.get(deploymentId)?.awaitRestart();
      await onExit();
    });
    return previous;
  }

  /** Stops the deployment's process and closes its port. */
  async remove(deploymentId: string): Promise<void> {
    const process = this.active.get(deploymentId);
    this.active.delete(deploymentId);
    await process?.stop();
    await this.proxies.get(deploymentId)?.close();
    this.proxies.delete(deploymentId);
  }

  async stopAll(): Promise<void> {
    const processes = [...this.active.values()];
    this.active.clear();
    await Promise.all(processes.map((process) => process.stop()));
    await this.spares.stop();
    await Promise.all([...this.proxies.values()].map((proxy) => proxy.close()));
    this.proxies.clear();
  }
}
