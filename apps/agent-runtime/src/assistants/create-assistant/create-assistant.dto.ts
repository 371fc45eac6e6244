import { Transform } from 'class-transformer';
import { IsIn, IsObject, IsOptional, IsString, IsUUID, ValidateIf } from 'class-validator';
import type { JsonObject } from '#libs/event-store';
import { toNormalizedId } from '../../common/id.pipe.js';

export class CreateAssistantDto {
  @IsString()
  graph_id!: string;

  @IsOptional()
  @Transform(toNormalizedId)
  @IsUUID()
  assistant_id?: string;

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
  @IsIn(['raise', 'do_nothing'])
  if_exists?: 'raise' | 'do_nothing';

  @IsOptional()
  @IsString()
  name?: string;

  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsString()
  description?: string | null;
}
