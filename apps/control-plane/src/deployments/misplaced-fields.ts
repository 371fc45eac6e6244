import { type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { getMetadataStorage } from 'class-validator';
import type { FastifyRequest } from 'fastify';
import type { Observable } from 'rxjs';
import { ValidationFailedError, type ValidationIssue } from '#libs/http';
import { FIELD_ALIASES } from '../product-aliases/product-aliases.js';
import { CreateDeploymentDto } from './create-deployment/create-deployment.dto.js';
import { PatchDeploymentDto } from './patch-deployment/patch-deployment.dto.js';
import {
  ListenerConfigDto,
  SecretDto,
  SecretReferenceDto,
  SourceConfigDto,
  SourceRevisionConfigDto,
} from './deployments.dto.js';
import {
  ContainerDto,
  EnvVarDto,
  LocalObjectReferenceDto,
  ResourceRequirementsDto,
  ResourceSpecDto,
  VolumeDto,
  VolumeMountDto,
} from './resource-spec.dto.js';

// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- what class-validator takes
type DtoClass = Function;

/** An object of a deployment body: its DTO, and the DTOs of the objects (or arrays) it holds. */
export interface BodyShape {
  readonly dto: DtoClass;
  readonly nested?: Readonly<Record<string, BodyShape>>;
  /** Held as an array of such objects. */
  readonly array?: boolean;
}

const CONTAINER: BodyShape = {
  dto: ContainerDto,
  nested: {
    env: { dto: EnvVarDto, array: true },
    resources: { dto: ResourceRequirementsDto },
    volumeMounts: { dto: VolumeMountDto, array: true },
  },
};

const NESTED: Readonly<Record<string, BodyShape>> = {
  source_config: {
    dto: SourceConfigDto,
    nested: {
      listener_config: { dto: ListenerConfigDto },
      resource_spec: {
        dto: ResourceSpecDto,
        nested: {
          image_pull_secrets: { dto: LocalObjectReferenceDto, array: true },
          volumes: { dto: VolumeDto, array: true },
          volume_mounts: { dto: VolumeMountDto, array: true },
          init_containers: { ...CONTAINER, array: true },
          sidecars: { ...CONTAINER, array: true },
        },
      },
    },
  },
  source_revision_config: { dto: SourceRevisionConfigDto },
  secrets: { dto: SecretDto, array: true },
  secret_references: { dto: SecretReferenceDto, array: true },
};

export const DEPLOYMENT_BODY_SHAPES = {
  create: { dto: CreateDeploymentDto, nested: NESTED },
  patch: { dto: PatchDeploymentDto, nested: NESTED },
} as const satisfies Record<string, BodyShape>;

export type DeploymentBodyKind = keyof typeof DEPLOYMENT_BODY_SHAPES;

const TOP_LEVEL = 'the top level of the body';
const OTHER_TOP_LEVEL: Readonly<Record<DeploymentBodyKind, string>> = {
  create: 'the top level of a PATCH body',
  patch: 'the top level of a create (POST) body',
};

/** The fields a DTO declares (its validation decorators are what the schema accepts). */
export function fieldsOf(dto: DtoClass): Set<string> {
  return new Set(
    getMetadataStorage()
      .getTargetValidationMetadatas(dto, '', true, false)
      .map((metadata) => metadata.propertyName),
  );
}

/** Where each known field of the API's objects belongs, as labels like `source_config.resource_spec`. */
function homesOf(kind: DeploymentBodyKind): Map<string, string[]> {
  const homes = new Map<string, string[]>();
  const add = (field: string, label: string): void => {
    const labels = homes.get(field) ?? [];
    if (!labels.includes(label)) homes.set(field, [...labels, label]);
  };
  const visit = (shape: BodyShape, label: string): void => {
    for (const field of fieldsOf(shape.dto)) add(field, label);
    for (const [field, nested] of Object.entries(shape.nested ?? {})) {
      visit(nested, labelOf(label, field, nested));
    }
  };
  visit(DEPLOYMENT_BODY_SHAPES[kind], TOP_LEVEL);
  const other: DeploymentBodyKind = kind === 'create' ? 'patch' : 'create';
  const own = fieldsOf(DEPLOYMENT_BODY_SHAPES[kind].dto);
  for (const field of fieldsOf(DEPLOYMENT_BODY_SHAPES[other].dto)) {
    if (!own.has(field)) add(field, OTHER_TOP_LEVEL[kind]);
  }
  for (const { section, alias } of FIELD_ALIASES) add(alias, section.join('.'));
  return homes;
}

const HOMES: Readonly<Record<DeploymentBodyKind, Map<string, string[]>>> = {
  create: homesOf('create'),
  patch: homesOf('patch'),
};

/** `source_config.resource_spec`, `secrets[]`: how an object of the body is named in messages. */
function labelOf(parent: string, field: string, shape: BodyShape): string {
  const path = parent === TOP_LEVEL ? field : `${parent}.${field}`;
  return shape.array ? `${path}[]` : path;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function named(label: string): string {
  return label.startsWith('the ') ? label : `\`${label}\``;
}

function where(labels: readonly string[]): string {
  const shown = labels.slice(0, 3).map(named).join(', or ');
  return labels.length > 3 ? `${shown} (or ${labels.length - 3} other objects)` : shown;
}

/**
 * Fields of the deployments API given in an object they are not fields of (`build_command` in
 * `source_revision_config`, `repo_ref` in `source_config`, `secrets` inside `source_config`…):
 * one issue each, naming where the field belongs. Fields no object of the API knows are left to
 * the schema, which drops them (clients send extra fields, and must keep working).
 */
export function misplacedFields(body: unknown, kind: DeploymentBodyKind): ValidationIssue[] {
  const homes = HOMES[kind];
  const issues: ValidationIssue[] = [];
  const walk = (
    value: unknown,
    shape: BodyShape,
    loc: (string | number)[],
    label: string,
  ): void => {
    if (shape.array && Array.isArray(value)) {
      value.forEach((item, index) => {
        walk(item, { ...shape, array: false }, [...loc, index], label);
      });
      return;
    }
    if (!isRecord(value)) return;
    const own = fieldsOf(shape.dto);
    for (const [field, item] of Object.entries(value)) {
      if (own.has(field)) {
        const nested = shape.nested?.[field];
        if (nested) walk(item, nested, [...loc, field], labelOf(label, field, nested));
        continue;
      }
      const belongs = homes.get(field);
      if (!belongs) continue;
      issues.push({
        loc: [...loc, field],
        msg: `${field} does not belong in ${named(label)}: it is a field of ${where(belongs)}`,
        type: 'value_error.misplaced_field',
      });
    }
  };
  walk(body, DEPLOYMENT_BODY_SHAPES[kind], ['body'], TOP_LEVEL);
  return issues;
}

/** Refuses a deployment body with a known field in the wrong object (422), before validation. */
export class MisplacedFieldsInterceptor implements NestInterceptor {
  constructor(private readonly kind: DeploymentBodyKind) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const issues = misplacedFields(request.body, this.kind);
    if (issues.length > 0) throw new ValidationFailedError(issues);
    return next.handle();
  }
}
