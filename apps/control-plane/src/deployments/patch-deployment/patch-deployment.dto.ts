import { IsIn, IsOptional, IsString } from 'class-validator';
import { DEPLOYMENT_SOURCES, type DeploymentSource } from '../domain/deployment.types.js';
import { DeploymentConfigurationDto } from '../deployments.dto.js';

/** `PATCH /v2/deployments/{deployment_id}`. */
export class PatchDeploymentDto extends DeploymentConfigurationDto {
  /** Immutable: named here so that a change is refused with a 400 instead of ignored. */
  @IsOptional()
  @IsString()
  name?: string | null;

  @IsOptional()
  @IsIn(DEPLOYMENT_SOURCES)
  source?: DeploymentSource | null;

  @IsOptional()
  @IsIn(DEPLOYMENT_SOURCES.filter((source) => source !== 'external_container'))
  revision_source?: DeploymentSource | null;
}
