import { IsIn, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { DEPLOYMENT_SOURCES, type DeploymentSource } from '../domain/deployment.types.js';
import { DeploymentConfigurationDto, NAME } from '../deployments.dto.js';

/** `POST /v2/deployments`. */
export class CreateDeploymentDto extends DeploymentConfigurationDto {
  @IsString()
  @MinLength(1)
  @MaxLength(128)
  @Matches(NAME, { message: 'name must not contain control characters' })
  name!: string;

  @IsIn(DEPLOYMENT_SOURCES)
  source!: DeploymentSource;
}
