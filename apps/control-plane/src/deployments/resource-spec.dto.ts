import { Type } from 'class-transformer';
import {
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsNumber,
  IsObject,
  IsOptional,
  IsPositive,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  registerDecorator,
  ValidateNested,
  type ValidationArguments,
  type ValidationOptions,
} from 'class-validator';
import type { JsonObject } from '#libs/event-store';
import {
  CONTAINER_RESTART_POLICIES,
  IMAGE_PULL_POLICIES,
  RESOURCE_SPEC_BOUNDS,
  type Container,
  type ContainerRestartPolicy,
  type EnvVar,
  type ImagePullPolicy,
  type LocalObjectReference,
  type ResourceRequirements,
  type ResourceSpec,
  type Volume,
  type VolumeMount,
} from '#libs/resource-spec';

/** RFC 1123 label: lower-case alphanumerics and '-', starting and ending alphanumeric. */
export const DNS_LABEL_PATTERN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
export const DNS_LABEL_MAX_LENGTH = 63;
export const C_IDENTIFIER_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

const FINITE = { allowNaN: false, allowInfinity: false } as const;

export function isStringMap(value: unknown): value is Record<string, string> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((entry) => typeof entry === 'string')
  );
}

/** An object whose values are all strings. */
export function IsStringMap(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) => {
    registerDecorator({
      name: 'isStringMap',
      target: target.constructor,
      propertyName: String(propertyName),
      ...(options ? { options } : {}),
      validator: {
        validate: (value: unknown) => isStringMap(value),
        defaultMessage: (args?: ValidationArguments) =>
          `${args?.property ?? 'value'} must be an object whose values are all strings`,
      },
    });
  };
}

function hasNonEmptyValue(object: object): boolean {
  const { value } = object as { value?: unknown };
  return typeof value === 'string' && value !== '';
}

/** EnvVar.valueFrom: refused when the same variable has a non-empty `value`. */
function IsNotCombinedWithValue(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) => {
    registerDecorator({
      name: 'conflictsWithValue',
      target: target.constructor,
      propertyName: String(propertyName),
      ...(options ? { options } : {}),
      validator: {
        validate: (_value: unknown, args?: ValidationArguments) =>
          args === undefined || !hasNonEmptyValue(args.object),
        defaultMessage: (args?: ValidationArguments) =>
          `${args?.property ?? 'valueFrom'} cannot be used when value is non-empty`,
      },
    });
  };
}

function CpuRequest(): PropertyDecorator {
  return (target, propertyName) => {
    IsOptional()(target, propertyName);
    IsNumber(FINITE)(target, propertyName);
    Min(RESOURCE_SPEC_BOUNDS.cpuRequest.min)(target, propertyName);
    Max(RESOURCE_SPEC_BOUNDS.cpuRequest.max)(target, propertyName);
  };
}

function CpuLimit(): PropertyDecorator {
  return (target, propertyName) => {
    IsOptional()(target, propertyName);
    IsNumber(FINITE)(target, propertyName);
    Min(RESOURCE_SPEC_BOUNDS.cpuLimit.min)(target, propertyName);
    Max(RESOURCE_SPEC_BOUNDS.cpuLimit.max)(target, propertyName);
  };
}

function PositiveCpu(): PropertyDecorator {
  return (target, propertyName) => {
    IsOptional()(target, propertyName);
    IsNumber(FINITE)(target, propertyName);
    IsPositive()(target, propertyName);
  };
}

function OptionalInt(min: number): PropertyDecorator {
  return (target, propertyName) => {
    IsOptional()(target, propertyName);
    IsInt()(target, propertyName);
    Min(min)(target, propertyName);
  };
}

const ScaleCount = (): PropertyDecorator => OptionalInt(RESOURCE_SPEC_BOUNDS.scaleMin);
const MemoryMb = (): PropertyDecorator => OptionalInt(RESOURCE_SPEC_BOUNDS.memoryMbMin);

function OptionalString(): PropertyDecorator {
  return (target, propertyName) => {
    IsOptional()(target, propertyName);
    IsString()(target, propertyName);
  };
}

function OptionalFreeForm(): PropertyDecorator {
  return (target, propertyName) => {
    IsOptional()(target, propertyName);
    IsObject()(target, propertyName);
  };
}

function DnsLabel(): PropertyDecorator {
  return (target, propertyName) => {
    IsString()(target, propertyName);
    MaxLength(DNS_LABEL_MAX_LENGTH)(target, propertyName);
    Matches(DNS_LABEL_PATTERN, {
      message: ({ property }: ValidationArguments) =>
        `${property} must be a DNS label: lower-case letters, digits and '-', starting and ending with a letter or digit`,
    })(target, propertyName);
  };
}

function OptionalArrayOf(type: () => new () => object): PropertyDecorator {
  return (target, propertyName) => {
    IsOptional()(target, propertyName);
    IsArray()(target, propertyName);
    ValidateNested({ each: true })(target, propertyName);
    Type(type)(target, propertyName);
  };
}

export class LocalObjectReferenceDto implements LocalObjectReference {
  @IsString()
  @IsNotEmpty()
  name!: string;
}

export class VolumeDto implements Volume {
  @DnsLabel()
  name!: string;

  @OptionalFreeForm()
  configMap?: JsonObject | null;

  @OptionalFreeForm()
  secret?: JsonObject | null;

  @OptionalFreeForm()
  emptyDir?: JsonObject | null;

  @OptionalFreeForm()
  persistentVolumeClaim?: JsonObject | null;

  @OptionalFreeForm()
  nfs?: JsonObject | null;

  @OptionalFreeForm()
  projected?: JsonObject | null;

  @OptionalFreeForm()
  downwardAPI?: JsonObject | null;

  @OptionalFreeForm()
  csi?: JsonObject | null;
}

export class VolumeMountDto implements VolumeMount {
  @OptionalString()
  name?: string | null;

  @OptionalString()
  mountPath?: string | null;

  @OptionalString()
  subPath?: string | null;

  @OptionalString()
  mountPropagation?: string | null;

  @IsOptional()
  @IsBoolean()
  readOnly?: boolean | null;

  @OptionalString()
  subPathExpr?: string | null;
}

export class EnvVarDto implements EnvVar {
  @IsString()
  @Matches(C_IDENTIFIER_PATTERN, {
    message: ({ property }: ValidationArguments) =>
      `${property} must be a C identifier: letters, digits and '_', not starting with a digit`,
  })
  name!: string;

  @OptionalString()
  value?: string | null;

  @OptionalFreeForm()
  @IsNotCombinedWithValue()
  valueFrom?: JsonObject | null;
}

export class ResourceRequirementsDto implements ResourceRequirements {
  @IsOptional()
  @IsStringMap()
  limits?: Record<string, string> | null;

  @IsOptional()
  @IsStringMap()
  requests?: Record<string, string> | null;
}

export class ContainerDto implements Container {
  @DnsLabel()
  name!: string;

  @IsString()
  @IsNotEmpty()
  image!: string;

  @IsOptional()
  @IsIn(IMAGE_PULL_POLICIES)
  imagePullPolicy?: ImagePullPolicy | null;

  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  command?: string[] | null;

  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  args?: string[] | null;

  @OptionalString()
  workingDir?: string | null;

  @OptionalArrayOf(() => EnvVarDto)
  env?: EnvVarDto[] | null;

  @IsOptional()
  @IsArray()
  @IsObject({ each: true })
  envFrom?: JsonObject[] | null;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ResourceRequirementsDto)
  resources?: ResourceRequirementsDto | null;

  @OptionalArrayOf(() => VolumeMountDto)
  volumeMounts?: VolumeMountDto[] | null;

  @OptionalFreeForm()
  securityContext?: JsonObject | null;

  @IsOptional()
  @IsIn(CONTAINER_RESTART_POLICIES)
  restartPolicy?: ContainerRestartPolicy | null;
}

export class ResourceSpecDto implements Partial<ResourceSpec> {
  @ScaleCount()
  min_scale?: number | null;

  @ScaleCount()
  max_scale?: number | null;

  @CpuRequest()
  cpu?: number | null;

  @CpuLimit()
  cpu_limit?: number | null;

  @MemoryMb()
  memory_mb?: number | null;

  @MemoryMb()
  memory_limit_mb?: number | null;

  @ScaleCount()
  queue_min_scale?: number | null;

  @ScaleCount()
  queue_max_scale?: number | null;

  @CpuRequest()
  queue_cpu?: number | null;

  @CpuLimit()
  queue_cpu_limit?: number | null;

  @MemoryMb()
  queue_memory_mb?: number | null;

  @MemoryMb()
  queue_memory_limit_mb?: number | null;

  @PositiveCpu()
  orchestrator_cpu?: number | null;

  @PositiveCpu()
  orchestrator_cpu_limit?: number | null;

  @PositiveCpu()
  executor_cpu?: number | null;

  @PositiveCpu()
  executor_cpu_limit?: number | null;

  @MemoryMb()
  orchestrator_memory_mb?: number | null;

  @MemoryMb()
  orchestrator_memory_limit_mb?: number | null;

  @MemoryMb()
  executor_memory_mb?: number | null;

  @MemoryMb()
  executor_memory_limit_mb?: number | null;

  @ScaleCount()
  orchestrator_min_scale?: number | null;

  @ScaleCount()
  orchestrator_max_scale?: number | null;

  @CpuRequest()
  cache_cpu?: number | null;

  @CpuLimit()
  cache_cpu_limit?: number | null;

  @MemoryMb()
  cache_memory_mb?: number | null;

  @MemoryMb()
  cache_memory_limit_mb?: number | null;

  @IsOptional()
  @IsStringMap()
  labels?: Record<string, string> | null;

  @IsOptional()
  @IsStringMap()
  annotations?: Record<string, string> | null;

  @OptionalString()
  service_account_name?: string | null;

  @OptionalArrayOf(() => LocalObjectReferenceDto)
  image_pull_secrets?: LocalObjectReferenceDto[] | null;

  @OptionalArrayOf(() => VolumeDto)
  volumes?: VolumeDto[] | null;

  @OptionalArrayOf(() => VolumeMountDto)
  volume_mounts?: VolumeMountDto[] | null;

  @OptionalArrayOf(() => ContainerDto)
  init_containers?: ContainerDto[] | null;

  @OptionalArrayOf(() => ContainerDto)
  sidecars?: ContainerDto[] | null;

  @PositiveCpu()
  db_cpu?: number | null;

  @PositiveCpu()
  db_cpu_limit?: number | null;

  @MemoryMb()
  db_memory_mb?: number | null;

  @MemoryMb()
  db_memory_limit_mb?: number | null;

  @OptionalInt(RESOURCE_SPEC_BOUNDS.dbStorageGiMin)
  db_storage_gi?: number | null;

  @OptionalInt(RESOURCE_SPEC_BOUNDS.dbMaxConnectionsMin)
  db_max_connections?: number | null;
}
