import { OptionalInteger } from '#libs/http';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
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
import { MAX_TTL_MINUTES } from '../common/thread-ttl.js';

/** Deep namespaces are a mistake, not a design: 100 labels is far beyond any real use. */
const MAX_LABELS = 100;
const MAX_KEY = 1024;

/** `"true"`, `"1"`, `"yes"` (any case) are true in a query string; other words false. */
const queryBoolean = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' ? ['true', '1', 'yes'].includes(value.toLowerCase()) : value;

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

export class DeleteStoreItemDto {
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_LABELS)
  @IsString({ each: true })
  namespace?: string[];

  @IsString()
  @MaxLength(MAX_KEY)
  key!: string;
}

export class GetStoreItemQuery {
  /** The labels joined with dots. */
  @IsOptional()
  @IsString()
  namespace?: string;

  @IsString()
  @MaxLength(MAX_KEY)
  key!: string;

  @IsOptional()
  @Transform(queryBoolean)
  @IsBoolean()
  refresh_ttl?: boolean;
}

export class SearchStoreItemsDto {
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_LABELS)
  @IsString({ each: true })
  namespace_prefix?: string[];

  @IsOptional()
  @IsObject()
  filter?: Record<string, unknown>;

  @OptionalInteger(1, 1000, { fromText: true })
  limit?: number;

  @OptionalInteger(0, Number.MAX_SAFE_INTEGER)
  offset?: number;

  @IsOptional()
  @IsString()
  @MaxLength(10_000)
  query?: string;

  @IsOptional()
  @IsBoolean()
  refresh_ttl?: boolean;
}

export class ListNamespacesDto {
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_LABELS)
  @IsString({ each: true })
  prefix?: string[];

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_LABELS)
  @IsString({ each: true })
  suffix?: string[];

  @OptionalInteger(1, MAX_LABELS)
  max_depth?: number;

  @OptionalInteger(1, 1000)
  limit?: number;

  @OptionalInteger(0, Number.MAX_SAFE_INTEGER)
  offset?: number;
}
