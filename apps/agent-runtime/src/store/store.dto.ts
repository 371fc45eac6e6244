import { OptionalInteger } from '#libs/http';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
} from 'class-validator';

/** Deep namespaces are a mistake, not a design: 100 labels is far beyond any real use. */
export const MAX_LABELS = 100;
export const MAX_KEY = 1024;

/** `"true"`, `"1"`, `"yes"` (any case) are true in a query string; other words false. */
const queryBoolean = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' ? ['true', '1', 'yes'].includes(value.toLowerCase()) : value;

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
