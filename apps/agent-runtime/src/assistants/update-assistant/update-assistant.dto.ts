import { IsObject, IsOptional, IsString, ValidateIf } from 'class-validator';
import type { JsonObject } from '#libs/event-store';

export class UpdateAssistantDto {
  @IsOptional()
  @IsString()
  graph_id?: string;

  @IsOptional()
  @IsObject()
  config?: JsonObject;

  @IsOptional()
  @IsObject()
  context?: JsonObject;

  @IsOptional()
  @IsObject()
  metadata?: JsonObject;

  @IsOptional()
  @IsString()
  name?: string;

  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsString()
  description?: string | null;
}
