import { randomUUID } from 'node:crypto';
import type { ControlGroups, ResourceLimits } from './control-groups.js';
import { jailCommand, type JailTools } from './jail.js';
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
  ) {}

  /** The V8 heap, in MiB, that fits a jailed runtime's limits. */
  get runtimeHeapMegabytes(): number {
    return runtimeHeapMegabytes(this.settings);
  }

  async jail(request: JailRequest, command: readonly string[]): Promise<Jailed> {
    const limits = request.kind === 'build' ? this.settings.build : this.settings.runtime;
    const name = `${request.deploymentId}-${request.kind}-${randomUUID().slice(0, 8)}`;
    const cgroups = (await this.groups?.create(name, limits)) ?? [];
    const argv = jailCommand(
      this.tools,
      {
        identity: request.identity,
        writable: request.writable,
        readable: request.readable,
        tmpBytes: this.settings.tmpBytes,
        cwd: request.cwd,
        cgroups,
      },
      command,
    );
    return {
      argv,
      limits,
      ranOutOfMemory: () => this.groups?.ranOutOfMemory(name) ?? Promise.resolve(false),
      release: () => this.groups?.remove(name) ?? Promise.resolve(),
    };
  }
}

/** The log line for a jailed process the kernel ended at its memory limit. */
export const outOfMemory = (what: string, limits: ResourceLimits): string =>
  `${what} reached its memory limit of ${Math.round(limits.memoryBytes / 1024 / 1024)} MiB ` +
  'and was ended by the kernel (BERTH_BUILD_MEMORY_MB, BERTH_RUNTIME_MEMORY_MB)';
