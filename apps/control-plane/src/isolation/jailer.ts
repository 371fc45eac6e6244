import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { ControlGroups, ResourceLimits } from './control-groups.js';
import { JAIL_NETWORK_FDS, jailCommand, type JailTools } from './jail.js';
import { attachNetwork, type JailNetworkTools } from './jail-network.js';
import type {
  JailSockets,
  PlatformSocketOptions,
  PlatformSockets,
  RuntimeInbound,
} from './jail-sockets.js';
import { runtimeHeapMegabytes, type JailSettings } from './jail-settings.js';
import type { OsIdentity } from './os-identities.js';

/** One build command or runtime to jail. */
export type JailRequest = {
  readonly kind: 'build' | 'runtime';
  readonly deploymentId: string;
  readonly identity: OsIdentity;
  readonly writable: readonly string[];
  readonly readable: readonly string[];
  readonly cwd: string;
};

/** A command line ready to spawn, and what to do once its process has exited. */
export type Jailed = {
  readonly argv: readonly string[];
  /** The pipes to spawn it with after stdin, stdout and stderr (a network's info and block). */
  readonly extraPipes: readonly 'pipe'[];
  /**
   * Call once spawned (with `extraPipes`): gives it its network, then lets it start. Throws when
   * the network cannot be made; the caller then ends the process.
   */
  readonly started: (child: ChildProcess) => Promise<void>;
  /** A runtime's in a jail with a network of its own: the Unix socket it serves on. */
  readonly inbound: RuntimeInbound | undefined;
  /** What the limits were, for the log line when the kernel ended it. */
  readonly limits: ResourceLimits;
  /** Whether the kernel ended a process of it for want of memory. */
  readonly ranOutOfMemory: () => Promise<boolean>;
  /** Removes its control group; call once every process of it has exited. */
  readonly release: () => Promise<void>;
};

/** Makes the jails of builds and runtimes: bubblewrap and setpriv, in control groups of their own. */
export class Jailer {
  constructor(
    private readonly tools: JailTools,
    private readonly groups: ControlGroups | undefined,
    private readonly settings: JailSettings,
    /** Undefined: jails share the host's network (said at start). */
    private readonly network:
      { readonly tools: JailNetworkTools; readonly sockets: JailSockets } | undefined,
  ) {}

  /** Whether jails have networks of their own (then runtimes are reached on Unix sockets). */
  get sealsNetwork(): boolean {
    return this.network !== undefined;
  }

  /** The deployment's database gate and relay, for its runtimes; undefined when not sealed. */
  async platformSocketsOf(
    deploymentId: string,
    options: PlatformSocketOptions,
  ): Promise<PlatformSockets | undefined> {
    return this.network?.sockets.platformOf(deploymentId, options);
  }

  async forget(deploymentId: string): Promise<void> {
    await this.network?.sockets.closePlatform(deploymentId);
  }

  /** At shutdown, once every jail has ended: what the jailer made on the host goes. */
  async close(): Promise<void> {
    await this.network?.sockets.close();
    await this.groups?.removeLeftovers();
  }

  /** The V8 heap, in MiB, that fits a jailed runtime's limits. */
  get runtimeHeapMegabytes(): number {
    return runtimeHeapMegabytes(this.settings);
  }

  async jail(request: JailRequest, command: readonly string[]): Promise<Jailed> {
    const limits = request.kind === 'build' ? this.settings.build : this.settings.runtime;
    const name = `${request.deploymentId}-${request.kind}-${randomUUID().slice(0, 8)}`;
    const { network } = this;
    const inbound =
      network && request.kind === 'runtime'
        ? await network.sockets.runtimeInbound(name, request.identity)
        : undefined;
    const cgroups = (await this.groups?.create(name, limits)) ?? [];
    const argv = jailCommand(
      this.tools,
      {
        identity: request.identity,
        writable: inbound ? [...request.writable, inbound.listenDir] : request.writable,
        readable: request.readable,
        tmpBytes: this.settings.tmpBytes,
        cwd: request.cwd,
        cgroups,
        network: network
          ? { resolvConf: network.tools.resolvConf, mountPoint: network.tools.resolverMountPoint }
          : undefined,
      },
      command,
    );
    let releaseNetwork = (): void => undefined;
    return {
      argv,
      extraPipes: network ? Array<'pipe'>(JAIL_NETWORK_FDS).fill('pipe') : [],
      started: async (child) => {
        if (!network) return;
        releaseNetwork = (await attachNetwork(network.tools, child)).release;
      },
      inbound,
      limits,
      ranOutOfMemory: () => this.groups?.ranOutOfMemory(name) ?? Promise.resolve(false),
      release: async () => {
        releaseNetwork();
        await inbound?.remove();
        await this.groups?.remove(name);
      },
    };
  }
}

/** The log line for a jailed process the kernel ended at its memory limit. */
export const outOfMemory = (what: string, limits: ResourceLimits): string =>
  `${what} reached its memory limit of ${Math.round(limits.memoryBytes / 1024 / 1024)} MiB ` +
  'and was ended by the kernel (BERTH_BUILD_MEMORY_MB, BERTH_RUNTIME_MEMORY_MB)';
