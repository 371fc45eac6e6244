import { Transform } from 'class-transformer';
import { IsArray, IsBoolean, IsIn, IsObject, IsOptional, IsUUID } from 'class-validator';
import type { JsonObject } from '#libs/event-store';
import { PageDto } from '../common/page.dto.js';
import { normalizeId, toNormalizedId } from '../common/id.pipe.js';
import { defaultAssistantId, isUuid } from '../common/uuid5.js';

export const CRON_FIELDS = [
  'cron_id',
  'assistant_id',
  'thread_id',
  'on_run_completed',
  'end_time',
  'schedule',
  'timezone',
  'created_at',
  'updated_at',
  'user_id',
  'payload',
  'next_run_date',
  'metadata',
  'enabled',
  'now',
] as const;

/**
 * An assistant id, or a graph id read as its default assistant's (as a cron's create reads it):
 * a graph's crons are found by the graph's name.
 */
const toAssistantId = ({ value }: { value: unknown }): unknown => {
  if (typeof value !== 'string' || value === '') return value;
  return isUuid(value) ? normalizeId(value) : defaultAssistantId(value);
};

/** What a cron search or count matches (paging ignored by a count). */
export class CountCronsDto extends PageDto {
  /** An assistant id, or a graph id (its default assistant). */
  @IsOptional()
  @Transform(toAssistantId)
  @IsUUID()
  assistant_id?: string;

  @IsOptional()
  @Transform(toNormalizedId)
  @IsUUID()
  thread_id?: string;

  @IsOptional()
  @IsBoolean()
  enabled?: boolean;

  /** Crons whose metadata contains this (the application's auth filters land here). */
  @IsOptional()
  @IsObject()
  metadata?: JsonObject;
}

export class SearchCronsDto extends CountCronsDto {
  @IsOptional()
  @IsIn(['cron_id', 'assistant_id', 'thread_id', 'created_at', 'updated_at', 'next_run_date'])
  sort_by?:
    'cron_id' | 'assistant_id' | 'thread_id' | 'created_at' | 'updated_at' | 'next_run_date';

  @IsOptional()
  @IsIn(['asc', 'desc'])
  sort_order?: 'asc' | 'desc';

  @IsOptional()
  @IsArray()
  @IsIn(CRON_FIELDS, { each: true })
  select?: string[];
}
