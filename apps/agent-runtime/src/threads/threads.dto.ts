import { OptionalInteger } from '#libs/http';
import { Transform, Type } from 'class-transformer';
import { MAX_TTL_MINUTES } from '../common/thread-ttl.js';
import { toNormalizedId } from '../common/id.pipe.js';
import {
  ArrayMaxSize,
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

class SuperstepUpdateDto {
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

class SuperstepDto {
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => SuperstepUpdateDto)
  updates!: SuperstepUpdateDto[];
}

class ThreadTtlDto {
  /** Minutes the thread may be left alone before it is deleted. */
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @IsPositive()
  @Max(MAX_TTL_MINUTES)
  ttl!: number;

  @IsOptional()
  @IsIn(['delete'])
  strategy?: 'delete';
}

export class CreateThreadDto {
  @IsOptional()
  @Transform(toNormalizedId)
  @IsUUID()
  thread_id?: string;

  @IsOptional()
  @IsObject()
  metadata?: JsonObject;

  @IsOptional()
  @IsIn(['raise', 'do_nothing'])
  if_exists?: 'raise' | 'do_nothing';

  /** The graph of the thread, kept as `metadata.graph_id` (as the SDK's `graphId`). */
  @IsOptional()
  @IsString()
  graph_id?: string;

  /** The thread's history, built by applying these updates in order (needs its graph). */
  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => SuperstepDto)
  supersteps?: SuperstepDto[];

  @IsOptional()
  @ValidateNested()
  @Type(() => ThreadTtlDto)
  ttl?: ThreadTtlDto;
}

export class UpdateThreadDto {
  @IsOptional()
  @IsObject()
  metadata?: JsonObject;

  @IsOptional()
  @ValidateNested()
  @Type(() => ThreadTtlDto)
  ttl?: ThreadTtlDto;
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

export class PatchThreadStateDto {
  @IsObject()
  metadata!: JsonObject;
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

/** `POST /threads/prune`: threads to delete, by id. */
export class PruneThreadsDto {
  @IsArray()
  @ArrayMaxSize(1000)
  @Transform(toNormalizedId)
  @IsUUID('all', { each: true })
  thread_ids!: string[];

  /** `keep_latest` (old checkpoints dropped, threads kept) is refused: the log keeps them all. */
  @IsOptional()
  @IsIn(['delete'], {
    message:
      'strategy must be "delete": "keep_latest" (dropping all but the latest checkpoint) is not supported, Berth keeps every checkpoint in its log',
  })
  strategy?: 'delete';
}
