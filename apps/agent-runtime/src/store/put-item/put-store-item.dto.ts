import {
  ArrayMaxSize,
  IsArray,
  IsNumber,
  IsObject,
  IsOptional,
  IsPositive,
  IsString,
  Max,
  MaxLength,
  ValidateIf,
} from 'class-validator';
import type { JsonObject } from '#libs/event-store';
import { MAX_TTL_MINUTES } from '../../common/thread-ttl.js';
import { MAX_KEY, MAX_LABELS } from '../store.dto.js';

export class PutStoreItemDto {
  @IsArray()
  @ArrayMaxSize(MAX_LABELS)
  @IsString({ each: true })
  namespace!: string[];

  @IsString()
  @MaxLength(MAX_KEY)
  key!: string;

  @IsObject()
  value!: JsonObject;

  /** False: not embedded; a list of paths: embedded at these instead of `store.index.fields`. */
  @IsOptional()
  @ValidateIf((dto: PutStoreItemDto) => dto.index !== false)
  @IsArray()
  @IsString({ each: true })
  index?: false | string[] | null;

  /** Minutes the item lives unread and unwritten; null: until deleted. */
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @IsPositive()
  @Max(MAX_TTL_MINUTES)
  ttl?: number | null;
}
