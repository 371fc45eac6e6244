import { IsIn, IsObject, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import type { JsonObject } from '#libs/event-store';

/** `POST /v2/listeners`. */
export class RegisterListenerDto {
  @IsString()
  @MinLength(1)
  @MaxLength(128)
  name!: string;

  @IsIn(['cluster'])
  compute_type!: 'cluster';

  @IsOptional()
  @IsObject()
  compute_config?: JsonObject;
}
