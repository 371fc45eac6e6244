import { Type } from 'class-transformer';
import {
  IsArray,
  IsBoolean,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  MaxLength,
  MinLength,
  ValidateNested,
} from 'class-validator';
import {
  DEPLOYMENT_STATUSES,
  DEPLOYMENT_TYPES,
  type DeploymentStatus,
  type DeploymentType,
} from './domain/deployment.types.js';
import { MAX_PAGE_OFFSET, OptionalInteger } from '#libs/http';
import { ResourceSpecDto } from './resource-spec.dto.js';

/** A deployment name: any text without control characters. */
export const NAME = /^[^\p{Cc}]+$/u;

export class ListenerConfigDto {
  @IsOptional()
  @IsString()
  cluster_namespace?: string | null;
}

export class SourceConfigDto {
  @IsOptional()
  @IsUUID()
  integration_id?: string | null;

  @IsOptional()
  @IsString()
  @MinLength(1)
  repo_url?: string | null;

  @IsOptional()
  @IsIn(DEPLOYMENT_TYPES)
  deployment_type?: DeploymentType | null;

  @IsOptional()
  @IsBoolean()
  build_on_push?: boolean | null;

  @IsOptional()
  @Matches(/^https?:\/\/\S+$/, { message: 'custom_url must be an http(s) URL' })
  custom_url?: string | null;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ResourceSpecDto)
  resource_spec?: ResourceSpecDto | null;

  @IsOptional()
  @IsUUID()
  listener_id?: string | null;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ListenerConfigDto)
  listener_config?: ListenerConfigDto | null;

  @IsOptional()
  @IsString()
  @MaxLength(4096)
  install_command?: string | null;

  @IsOptional()
  @IsString()
  @MaxLength(4096)
  build_command?: string | null;
}

export class SourceRevisionConfigDto {
  @IsOptional()
  @IsString()
  @MinLength(1)
  repo_ref?: string | null;

  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(1024)
  graph_config_path?: string | null;

  @IsOptional()
  @IsString()
  @MinLength(1)
  image_uri?: string | null;

  @IsOptional()
  @IsString()
  @MinLength(1)
  source_tarball_path?: string | null;

  /** Read-only: accepted by the schema so that setting it is a clear 400, not silently dropped. */
  @IsOptional()
  @IsString()
  repo_commit_sha?: string | null;
}

export class SecretDto {
  @IsString()
  @MinLength(1)
  @MaxLength(256)
  name!: string;

  @IsString()
  @MaxLength(65536)
  value!: string;
}

export class SecretReferenceDto {
  @IsString()
  @MinLength(1)
  name!: string;

  @IsString()
  @MinLength(1)
  secret_name!: string;

  @IsString()
  @MinLength(1)
  secret_key!: string;
}

/** The configuration both a create and a PATCH carry. */
export class DeploymentConfigurationDto {
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => SourceConfigDto)
  source_config?: SourceConfigDto | null;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => SourceRevisionConfigDto)
  source_revision_config?: SourceRevisionConfigDto | null;

  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => SecretDto)
  secrets?: SecretDto[] | null;

  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => SecretReferenceDto)
  secret_references?: SecretReferenceDto[] | null;
}

export class PageQueryDto {
  @OptionalInteger(1, 100, { fromText: true })
  limit?: number;

  @OptionalInteger(0, MAX_PAGE_OFFSET, { fromText: true })
  offset?: number;
}

export class ListDeploymentsQueryDto extends PageQueryDto {
  @IsOptional()
  @IsString()
  name_contains?: string;

  @IsOptional()
  @IsIn(DEPLOYMENT_STATUSES)
  status?: DeploymentStatus;

  @IsOptional()
  @IsIn(DEPLOYMENT_TYPES)
  deployment_type?: DeploymentType;

  /** Exact name, for tools that look a deployment up by the name they gave it. */
  @IsOptional()
  @IsString()
  name?: string;
}

export class ListRevisionsQueryDto extends PageQueryDto {
  /** Comma-separated revision statuses. */
  @IsOptional()
  @Matches(/^[A-Z_]+(,[A-Z_]+)*$/, { message: 'status must be comma-separated revision statuses' })
  status?: string;
}
