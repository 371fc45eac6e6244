import { Transform, Type } from 'class-transformer';
import {
  IsArray,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  ValidateNested,
} from 'class-validator';
import type { JsonObject } from '#libs/event-store';
import { toNormalizedId } from '../../common/id.pipe.js';
import { SuperstepDto, ThreadTtlDto } from '../threads.dto.js';

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
