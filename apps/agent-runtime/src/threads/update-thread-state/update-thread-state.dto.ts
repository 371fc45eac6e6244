import { IsObject, IsOptional, IsString, ValidateIf } from 'class-validator';
import type { JsonObject } from '#libs/event-store';

export class UpdateThreadStateDto {
  /** An update (an object), a list of updates, or null. */
  @IsOptional()
  @ValidateIf((_, value) => value !== null && !Array.isArray(value))
  @IsObject()
  values?: JsonObject | JsonObject[] | null;

  @IsOptional()
  @IsString()
  as_node?: string;

  @IsOptional()
  @IsString()
  checkpoint_id?: string;

  @IsOptional()
  @IsObject()
  checkpoint?: JsonObject;
}
