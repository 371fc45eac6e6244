import { resolveResourceSpec, type ResourceSpec } from '#libs/resource-spec';

/**
 * What a revision gets where its resource spec says nothing (the interface leaves these to the
 * platform): one replica of each of 1 CPU and 1024 MB, a database of 0.5 CPU, 1024 MB, 10 GiB and
 * 100 connections. The limits and the queue's fields are then derived as the interface says
 * (limits 2x the requests, the queue as the API servers).
 */
export const RENDER_DEFAULTS = {
  min_scale: 1,
  cpu: 1,
  memory_mb: 1024,
  db_cpu: 0.5,
  db_memory_mb: 1024,
  db_storage_gi: 10,
  db_max_connections: 100,
} as const satisfies Partial<ResourceSpec>;

/** Requests and limits of one kind of container, in the interface's units (cores, MB). */
export interface ContainerResources {
  readonly cpu: number;
  readonly cpuLimit: number;
  readonly memoryMb: number;
  readonly memoryLimitMb: number;
}

export interface ScaledResources extends ContainerResources {
  readonly minReplicas: number;
  /** Never below `minReplicas`. */
  readonly maxReplicas: number;
}

export interface EffectiveResources {
  readonly api: ScaledResources;
  readonly queue: ScaledResources;
  readonly database: ContainerResources & {
    readonly storageGi: number;
    readonly maxConnections: number;
  };
}

function withoutNulls(spec: ResourceSpec | null): Partial<ResourceSpec> {
  if (!spec) return {};
  return Object.fromEntries(Object.entries(spec).filter(([, value]) => value !== null));
}

function scaled(min: number, max: number | null, resources: ContainerResources): ScaledResources {
  return { ...resources, minReplicas: min, maxReplicas: Math.max(min, max ?? min) };
}

/** The resources a revision's objects are rendered with: its spec over the defaults. */
export function effectiveResources(spec: ResourceSpec | null): EffectiveResources {
  const resolved = resolveResourceSpec({ ...RENDER_DEFAULTS, ...withoutNulls(spec) });
  const number = (value: number | null, fallback: number): number => value ?? fallback;
  return {
    api: scaled(number(resolved.min_scale, 1), resolved.max_scale, {
      cpu: number(resolved.cpu, RENDER_DEFAULTS.cpu),
      cpuLimit: number(resolved.cpu_limit, RENDER_DEFAULTS.cpu * 2),
      memoryMb: number(resolved.memory_mb, RENDER_DEFAULTS.memory_mb),
      memoryLimitMb: number(resolved.memory_limit_mb, RENDER_DEFAULTS.memory_mb * 2),
    }),
    queue: scaled(number(resolved.queue_min_scale, 1), resolved.queue_max_scale, {
      cpu: number(resolved.queue_cpu, RENDER_DEFAULTS.cpu),
      cpuLimit: number(resolved.queue_cpu_limit, RENDER_DEFAULTS.cpu * 2),
      memoryMb: number(resolved.queue_memory_mb, RENDER_DEFAULTS.memory_mb),
      memoryLimitMb: number(resolved.queue_memory_limit_mb, RENDER_DEFAULTS.memory_mb * 2),
    }),
    database: {
      cpu: number(resolved.db_cpu, RENDER_DEFAULTS.db_cpu),
      cpuLimit: number(resolved.db_cpu_limit, RENDER_DEFAULTS.db_cpu * 2),
      memoryMb: number(resolved.db_memory_mb, RENDER_DEFAULTS.db_memory_mb),
      memoryLimitMb: number(resolved.db_memory_limit_mb, RENDER_DEFAULTS.db_memory_mb * 2),
      storageGi: number(resolved.db_storage_gi, RENDER_DEFAULTS.db_storage_gi),
      maxConnections: number(resolved.db_max_connections, RENDER_DEFAULTS.db_max_connections),
    },
  };
}

/** Kubernetes quantities: CPU in cores as written (`0.5`), memory in mebibytes (`1024Mi`). */
export function requirementsOf(resources: ContainerResources) {
  return {
    requests: { cpu: String(resources.cpu), memory: `${resources.memoryMb}Mi` },
    limits: { cpu: String(resources.cpuLimit), memory: `${resources.memoryLimitMb}Mi` },
  };
}
