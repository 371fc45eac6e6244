import { OptionalInteger } from '#libs/http';
import { Type } from 'class-transformer';
import { MAX_TTL_MINUTES } from '../common/thread-ttl.js';
import {
  IsArray,
  IsBoolean,
  IsIn,
  IsNumber,
  IsObject,
  IsOptional,
  IsPositive,
  IsString,
  IsUUID,
  Max,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import type { JsonObject, JsonValue } from '#libs/event-store';
import { PageDto } from '../common/page.dto.js';

export class SuperstepUpdateDto {
  /** An update (any JSON the graph's state accepts); ignored when `command` is given. */
  @IsOptional()
  values?: JsonValue;

  @IsOptional()
  @IsObject()
  command?: JsonObject;

  @IsOptional()
  @IsString()
  as_node?: string;
}

export class SuperstepDto {
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => SuperstepUpdateDto)
  updates!: SuperstepUpdateDto[];
}

export class ThreadTtlDto {
  /** Minutes the thread may be left alone before it is deleted. */
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @IsPositive()
  @Max(MAX_TTL_MINUTES)
  ttl!: number;

  @IsOptional()
  @IsIn(['delete'])
  strategy?: 'delete';
}

export const ttlOf = (body: { ttl?: ThreadTtlDto }): { ttl_minutes: number } | null =>
  body.ttl ? { ttl_minutes: body.ttl.ttl } : null;

const THREAD_FIELDS = [
  'thread_id',
  'created_at',
  'updated_at',
  'metadata',
  'status',
  'config',
  'values',
  'interrupts',
];

export class SearchThreadsDto extends PageDto {
  @IsOptional()
  @IsObject()
  metadata?: JsonObject;

  @IsOptional()
  @IsObject()
  values?: JsonObject;

  @IsOptional()
  @IsIn(['idle', 'busy', 'interrupted', 'error'])
  status?: 'idle' | 'busy' | 'interrupted' | 'error';

  @IsOptional()
  @IsArray()
  @IsUUID('all', { each: true })
  ids?: string[];

  @IsOptional()
  @IsIn(['thread_id', 'status', 'created_at', 'updated_at'])
  sort_by?: 'thread_id' | 'status' | 'created_at' | 'updated_at';

  @IsOptional()
  @IsIn(['asc', 'desc'])
  sort_order?: 'asc' | 'desc';

  @IsOptional()
  @IsArray()
  @IsIn(THREAD_FIELDS, { each: true })
  select?: string[];
}

export class HistoryDto {
  @OptionalInteger(1, 1000, { fromText: true })
  limit?: number;

  @IsOptional()
  @ValidateIf((_, value) => typeof value !== 'string')
  @IsObject()
  before?: JsonObject | string;

  @IsOptional()
  @IsObject()
  metadata?: JsonObject;

  @IsOptional()
  @IsObject()
  checkpoint?: JsonObject;
}

export class HistoryQueryDto {
  @OptionalInteger(1, 1000, { fromText: true })
  limit?: number;

  @IsOptional()
  @IsString()
  before?: string;
}

export class StateAtCheckpointDto {
  @IsOptional()
  @IsObject()
  checkpoint?: JsonObject;

  @IsOptional()
  @IsBoolean()
  subgraphs?: boolean;
}

export class StateQueryDto {
  @IsOptional()
  @Type(() => Boolean)
  @IsBoolean()
  subgraphs?: boolean;
}
