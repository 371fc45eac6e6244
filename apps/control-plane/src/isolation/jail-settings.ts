import { ConfigError, envInteger, envText, type Environment } from '#libs/config';
import type { ResourceLimits } from './control-groups.js';

const MIB = 1024 * 1024;

/** What each jailed build and runtime may use, and where OS ids are claimed on the host. */
export interface JailSettings {
  readonly build: ResourceLimits;
  readonly runtime: ResourceLimits;
  /** Size of each jail's private /tmp (memory, within its memory limit). */
  readonly tmpBytes: number;
  /** Disk a deployment's tree (home, kept builds) may hold. */
  readonly deploymentDiskBytes: number;
  /** The host-wide directory of OS id claims (see OsIdentities). */
  readonly osIdRegistry: string;
  /**
   * Jails share the host's network (BERTH_JAIL_NETWORK=host) instead of each having its own
   * (`own`, the default): a sealing gap, said at start, for tenants that must reach the host.
   */
  readonly sharesHostNetwork: boolean;
}

const megabytes = (name: string, value: string | undefined, fallback: number): number =>
  envInteger(name, value, fallback, { min: 16, max: 16 * 1024 * 1024 }) * MIB;

const processes = (name: string, value: string | undefined, fallback: number): number =>
  envInteger(name, value, fallback, { min: 16, max: 1_000_000 });

export function loadJailSettings(env: Environment): JailSettings {
  return {
    build: {
      memoryBytes: megabytes('BERTH_BUILD_MEMORY_MB', env.BERTH_BUILD_MEMORY_MB, 4096),
      pids: processes('BERTH_BUILD_PROCESSES', env.BERTH_BUILD_PROCESSES, 1024),
    },
    runtime: {
      memoryBytes: megabytes('BERTH_RUNTIME_MEMORY_MB', env.BERTH_RUNTIME_MEMORY_MB, 2048),
      pids: processes('BERTH_RUNTIME_PROCESSES', env.BERTH_RUNTIME_PROCESSES, 512),
    },
    tmpBytes: megabytes('BERTH_JAIL_TMP_MB', env.BERTH_JAIL_TMP_MB, 256),
    deploymentDiskBytes: megabytes('BERTH_DEPLOYMENT_DISK_MB', env.BERTH_DEPLOYMENT_DISK_MB, 5120),
    osIdRegistry: envText(env.BERTH_OS_ID_REGISTRY) ?? '/var/lib/berth/os-ids',
    sharesHostNetwork: jailNetworkOf(envText(env.BERTH_JAIL_NETWORK)) === 'host',
  };
}

function jailNetworkOf(value: string | undefined): 'own' | 'host' {
  if (value === undefined || value === 'own' || value === 'host') return value ?? 'own';
  throw new ConfigError(`BERTH_JAIL_NETWORK must be own or host, not ${value}`);
}

/** Below this, a runtime could not load the platform and an application at all. */
const MIN_RUNTIME_HEAP_MB = 64;

/**
 * The V8 heap a jailed runtime is started with: three quarters of what its memory limit leaves
 * beside its private /tmp (memory too), so that the collector works hard before the kernel's limit
 * is near. Without it V8 sizes its heap from the host's memory and lets garbage pile up past the
 * jail's limit, where the kernel ends the runtime mid-run.
 */
export function runtimeHeapMegabytes(settings: JailSettings): number {
  const { memoryBytes } = settings.runtime;
  const room = Math.max(memoryBytes / 2, memoryBytes - settings.tmpBytes);
  return Math.max(MIN_RUNTIME_HEAP_MB, Math.floor((room * 3) / 4 / MIB));
}
