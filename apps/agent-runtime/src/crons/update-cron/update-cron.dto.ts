import {
  IsBoolean,
  IsDateString,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  ValidateIf,
} from 'class-validator';
import type { JsonObject, JsonValue } from '#libs/event-store';
import { IsWebhookTarget } from '../../common/webhook-target.js';
import { NodeNamesOrAll } from '../../runs/create-run/create-run.dto.js';

export class UpdateCronDto {
  @IsOptional()
  @IsString()
  @MaxLength(200)
  schedule?: string;

  @IsOptional()
  @IsString()
  @MaxLength(100)
  timezone?: string;

  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsDateString({ strict: true })
  end_time?: string | null;

  @IsOptional()
  @IsBoolean()
  enabled?: boolean;

  @IsOptional()
  @IsIn(['delete', 'keep'])
  on_run_completed?: 'delete' | 'keep';

  @IsOptional()
  input?: JsonValue;

  @IsOptional()
  @IsObject()
  metadata?: JsonObject;

  @IsOptional()
  @IsObject()
  config?: JsonObject;

  @IsOptional()
  @IsObject()
  context?: JsonObject;

  @IsOptional()
  @IsWebhookTarget()
  webhook?: string;

  @NodeNamesOrAll('interrupt_before')
  interrupt_before?: string[] | '*';

  @NodeNamesOrAll('interrupt_after')
  interrupt_after?: string[] | '*';
}
