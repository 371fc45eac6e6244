import type { JsonObject } from '#libs/event-store';

export type LocalObjectReference = {
  name: string;
};

export type Volume = {
  name: string;
  configMap?: JsonObject | null;
  secret?: JsonObject | null;
  emptyDir?: JsonObject | null;
  persistentVolumeClaim?: JsonObject | null;
  nfs?: JsonObject | null;
  projected?: JsonObject | null;
  downwardAPI?: JsonObject | null;
  csi?: JsonObject | null;
};

export type VolumeMount = {
  name?: string | null;
  mountPath?: string | null;
  subPath?: string | null;
  mountPropagation?: string | null;
  readOnly?: boolean | null;
  subPathExpr?: string | null;
};

export type EnvVar = {
  name: string;
  value?: string | null;
  valueFrom?: JsonObject | null;
};

export type ResourceRequirements = {
  limits?: Record<string, string> | null;
  requests?: Record<string, string> | null;
};

export const IMAGE_PULL_POLICIES = ['Always', 'Never', 'IfNotPresent'] as const;
export type ImagePullPolicy = (typeof IMAGE_PULL_POLICIES)[number];

export const CONTAINER_RESTART_POLICIES = ['Always', 'OnFailure'] as const;
export type ContainerRestartPolicy = (typeof CONTAINER_RESTART_POLICIES)[number];

export type Container = {
  name: string;
  image: string;
  imagePullPolicy?: ImagePullPolicy | null;
  command?: string[] | null;
  args?: string[] | null;
  workingDir?: string | null;
  env?: EnvVar[] | null;
  envFrom?: JsonObject[] | null;
  resources?: ResourceRequirements | null;
  volumeMounts?: VolumeMount[] | null;
  securityContext?: JsonObject | null;
  restartPolicy?: ContainerRestartPolicy | null;
};

/** The stored, resolved resource spec of a deployment: every field present, null when unset. */
export type ResourceSpec = {
  min_scale: number | null;
  max_scale: number | null;
  cpu: number | null;
  cpu_limit: number | null;
  memory_mb: number | null;
  memory_limit_mb: number | null;
  queue_min_scale: number | null;
  queue_max_scale: number | null;
  queue_cpu: number | null;
  queue_cpu_limit: number | null;
  queue_memory_mb: number | null;
  queue_memory_limit_mb: number | null;
  orchestrator_cpu: number | null;
  orchestrator_cpu_limit: number | null;
  executor_cpu: number | null;
  executor_cpu_limit: number | null;
  orchestrator_memory_mb: number | null;
  orchestrator_memory_limit_mb: number | null;
  executor_memory_mb: number | null;
  executor_memory_limit_mb: number | null;
  orchestrator_min_scale: number | null;
  orchestrator_max_scale: number | null;
  cache_cpu: number | null;
  cache_cpu_limit: number | null;
  cache_memory_mb: number | null;
  cache_memory_limit_mb: number | null;
  labels: Record<string, string> | null;
  annotations: Record<string, string> | null;
  service_account_name: string | null;
  image_pull_secrets: LocalObjectReference[] | null;
  volumes: Volume[] | null;
  volume_mounts: VolumeMount[] | null;
  init_containers: Container[] | null;
  sidecars: Container[] | null;
  db_cpu: number | null;
  db_cpu_limit: number | null;
  db_memory_mb: number | null;
  db_memory_limit_mb: number | null;
  db_storage_gi: number | null;
  db_max_connections: number | null;
};

export type ResourceSpecField = keyof ResourceSpec;

type NumericField = {
  [K in ResourceSpecField]: ResourceSpec[K] extends number | null ? K : never;
}[ResourceSpecField];

export const RESOURCE_SPEC_FIELDS = [
  'min_scale',
  'max_scale',
  'cpu',
  'cpu_limit',
  'memory_mb',
  'memory_limit_mb',
  'queue_min_scale',
  'queue_max_scale',
  'queue_cpu',
  'queue_cpu_limit',
  'queue_memory_mb',
  'queue_memory_limit_mb',
  'orchestrator_cpu',
  'orchestrator_cpu_limit',
  'executor_cpu',
  'executor_cpu_limit',
  'orchestrator_memory_mb',
  'orchestrator_memory_limit_mb',
  'executor_memory_mb',
  'executor_memory_limit_mb',
  'orchestrator_min_scale',
  'orchestrator_max_scale',
  'cache_cpu',
  'cache_cpu_limit',
  'cache_memory_mb',
  'cache_memory_limit_mb',
  'labels',
  'annotations',
  'service_account_name',
  'image_pull_secrets',
  'volumes',
  'volume_mounts',
  'init_containers',
  'sidecars',
  'db_cpu',
  'db_cpu_limit',
  'db_memory_mb',
  'db_memory_limit_mb',
  'db_storage_gi',
  'db_max_connections',
] as const satisfies readonly ResourceSpecField[];

/** Every CPU field: rounded to 1 decimal place when resolved. */
export const RESOURCE_SPEC_CPU_FIELDS = [
  'cpu',
  'cpu_limit',
  'queue_cpu',
  'queue_cpu_limit',
  'cache_cpu',
  'cache_cpu_limit',
  'db_cpu',
  'db_cpu_limit',
  'orchestrator_cpu',
  'orchestrator_cpu_limit',
  'executor_cpu',
  'executor_cpu_limit',
] as const satisfies readonly NumericField[];

/** Bounds checked on a request; scale counts may be 0, sizes and connection counts at least 1. */
export const RESOURCE_SPEC_BOUNDS = {
  cpuRequest: { min: 0.1, max: 8 },
  cpuLimit: { min: 0.1, max: 16 },
  scaleMin: 0,
  memoryMbMin: 1,
  dbStorageGiMin: 1,
  dbMaxConnectionsMin: 1,
} as const;

interface Derivation {
  readonly field: NumericField;
  readonly source: NumericField;
  readonly factor: 1 | 2;
}

/** Defaults in dependency order: a field is derived only after its source is resolved. */
const DERIVATIONS: readonly Derivation[] = [
  { field: 'cpu_limit', source: 'cpu', factor: 2 },
  { field: 'memory_limit_mb', source: 'memory_mb', factor: 2 },
  { field: 'queue_min_scale', source: 'min_scale', factor: 1 },
  { field: 'queue_max_scale', source: 'max_scale', factor: 1 },
  { field: 'queue_cpu', source: 'cpu', factor: 1 },
  { field: 'queue_cpu_limit', source: 'queue_cpu', factor: 2 },
  { field: 'queue_memory_mb', source: 'memory_mb', factor: 1 },
  { field: 'queue_memory_limit_mb', source: 'queue_memory_mb', factor: 2 },
  { field: 'cache_cpu_limit', source: 'cache_cpu', factor: 2 },
  { field: 'cache_memory_limit_mb', source: 'cache_memory_mb', factor: 1 },
  { field: 'db_cpu_limit', source: 'db_cpu', factor: 2 },
  { field: 'db_memory_limit_mb', source: 'db_memory_mb', factor: 2 },
];

const CPU_FIELD_SET: ReadonlySet<string> = new Set(RESOURCE_SPEC_CPU_FIELDS);

/**
 * Rounds half up to 1 decimal place on the decimal value as written (0.25 → 0.3, 0.35 → 0.4),
 * giving the double nearest that decimal (2 × 0.3 is 0.6, not 0.6000000000000001).
 */
export function roundCpu(value: number): number {
  const written = String(value);
  const tenths = written.includes('e') ? value * 10 : Number(`${written}e1`);
  return Math.round(tenths) / 10;
}

function copyJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** The stored spec for a request: CPU rounded, unset fields derived from their sources, the rest null. */
export function resolveResourceSpec(input: Partial<ResourceSpec>): ResourceSpec {
  const spec: ResourceSpec = {
    min_scale: input.min_scale ?? null,
    max_scale: input.max_scale ?? null,
    cpu: input.cpu ?? null,
    cpu_limit: input.cpu_limit ?? null,
    memory_mb: input.memory_mb ?? null,
    memory_limit_mb: input.memory_limit_mb ?? null,
    queue_min_scale: input.queue_min_scale ?? null,
    queue_max_scale: input.queue_max_scale ?? null,
    queue_cpu: input.queue_cpu ?? null,
    queue_cpu_limit: input.queue_cpu_limit ?? null,
    queue_memory_mb: input.queue_memory_mb ?? null,
    queue_memory_limit_mb: input.queue_memory_limit_mb ?? null,
    orchestrator_cpu: input.orchestrator_cpu ?? null,
    orchestrator_cpu_limit: input.orchestrator_cpu_limit ?? null,
    executor_cpu: input.executor_cpu ?? null,
    executor_cpu_limit: input.executor_cpu_limit ?? null,
    orchestrator_memory_mb: input.orchestrator_memory_mb ?? null,
    orchestrator_memory_limit_mb: input.orchestrator_memory_limit_mb ?? null,
    executor_memory_mb: input.executor_memory_mb ?? null,
    executor_memory_limit_mb: input.executor_memory_limit_mb ?? null,
    orchestrator_min_scale: input.orchestrator_min_scale ?? null,
    orchestrator_max_scale: input.orchestrator_max_scale ?? null,
    cache_cpu: input.cache_cpu ?? null,
    cache_cpu_limit: input.cache_cpu_limit ?? null,
    cache_memory_mb: input.cache_memory_mb ?? null,
    cache_memory_limit_mb: input.cache_memory_limit_mb ?? null,
    labels: input.labels ? copyJson(input.labels) : null,
    annotations: input.annotations ? copyJson(input.annotations) : null,
    service_account_name: input.service_account_name ?? null,
    image_pull_secrets: input.image_pull_secrets ? copyJson(input.image_pull_secrets) : null,
    volumes: input.volumes ? copyJson(input.volumes) : null,
    volume_mounts: input.volume_mounts ? copyJson(input.volume_mounts) : null,
    init_containers: input.init_containers ? copyJson(input.init_containers) : null,
    sidecars: input.sidecars ? copyJson(input.sidecars) : null,
    db_cpu: input.db_cpu ?? null,
    db_cpu_limit: input.db_cpu_limit ?? null,
    db_memory_mb: input.db_memory_mb ?? null,
    db_memory_limit_mb: input.db_memory_limit_mb ?? null,
    db_storage_gi: input.db_storage_gi ?? null,
    db_max_connections: input.db_max_connections ?? null,
  };
  for (const field of RESOURCE_SPEC_CPU_FIELDS) {
    const value = spec[field];
    if (value !== null) spec[field] = roundCpu(value);
  }
  for (const { field, source, factor } of DERIVATIONS) {
    const from = spec[source];
    if (spec[field] !== null || from === null) continue;
    const derived = from * factor;
    spec[field] = CPU_FIELD_SET.has(field) ? roundCpu(derived) : derived;
  }
  return spec;
}

export interface ResourceSpecProblem {
  readonly field: string;
  readonly message: string;
}

const LIMITS: readonly (readonly [request: NumericField, limit: NumericField])[] = [
  ['cpu', 'cpu_limit'],
  ['memory_mb', 'memory_limit_mb'],
  ['queue_cpu', 'queue_cpu_limit'],
  ['queue_memory_mb', 'queue_memory_limit_mb'],
  ['cache_cpu', 'cache_cpu_limit'],
  ['cache_memory_mb', 'cache_memory_limit_mb'],
  ['db_cpu', 'db_cpu_limit'],
  ['db_memory_mb', 'db_memory_limit_mb'],
  ['orchestrator_cpu', 'orchestrator_cpu_limit'],
  ['orchestrator_memory_mb', 'orchestrator_memory_limit_mb'],
  ['executor_cpu', 'executor_cpu_limit'],
  ['executor_memory_mb', 'executor_memory_limit_mb'],
];

const SCALES: readonly (readonly [min: NumericField, max: NumericField])[] = [
  ['min_scale', 'max_scale'],
  ['queue_min_scale', 'queue_max_scale'],
  ['orchestrator_min_scale', 'orchestrator_max_scale'],
];

function volumeMountProblems(
  mounts: readonly VolumeMount[] | null | undefined,
  at: string,
  volumeNames: ReadonlySet<string>,
): ResourceSpecProblem[] {
  return (mounts ?? []).flatMap((mount, index) =>
    mount.name === null || mount.name === undefined || volumeNames.has(mount.name)
      ? []
      : [
          {
            field: `${at}[${index}].name`,
            message: `${at}[${index}].name '${mount.name}' does not match the name of a volume`,
          },
        ],
  );
}

/** What makes a resolved spec unusable (a limit below its request, a minimum above its maximum), by field. */
export function resourceSpecProblems(spec: ResourceSpec): ResourceSpecProblem[] {
  const problems: ResourceSpecProblem[] = [];
  for (const field of RESOURCE_SPEC_CPU_FIELDS) {
    if (spec[field] === 0) {
      problems.push({
        field,
        message: `${field} rounds to 0 at 1 decimal place; it must be at least 0.05`,
      });
    }
  }
  for (const [request, limit] of LIMITS) {
    const requested = spec[request];
    const limited = spec[limit];
    if (requested !== null && limited !== null && limited < requested) {
      problems.push({
        field: limit,
        message: `${limit} (${limited}) is below ${request} (${requested})`,
      });
    }
  }
  for (const [min, max] of SCALES) {
    const low = spec[min];
    const high = spec[max];
    if (low !== null && high !== null && low > high) {
      problems.push({ field: min, message: `${min} (${low}) is above ${max} (${high})` });
    }
  }
  const volumeNames = new Set<string>();
  (spec.volumes ?? []).forEach((volume, index) => {
    if (volumeNames.has(volume.name)) {
      problems.push({
        field: `volumes[${index}].name`,
        message: `volume name '${volume.name}' is used by more than one volume`,
      });
    }
    volumeNames.add(volume.name);
  });
  problems.push(...volumeMountProblems(spec.volume_mounts, 'volume_mounts', volumeNames));
  for (const group of ['init_containers', 'sidecars'] as const) {
    (spec[group] ?? []).forEach((container, index) => {
      problems.push(
        ...volumeMountProblems(
          container.volumeMounts,
          `${group}[${index}].volumeMounts`,
          volumeNames,
        ),
      );
    });
  }
  return problems;
}
