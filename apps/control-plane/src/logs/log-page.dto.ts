import { OptionalInteger } from '#libs/http';
import { IsDateString, IsIn, IsNumberString, IsOptional, IsString } from 'class-validator';
import type { LogPageQuery } from './log-page.js';

/** The body the official deploy CLI posts to read logs. */
export class LogPageQueryDto implements LogPageQuery {
  @IsOptional()
  @IsIn(['asc', 'desc'])
  order?: 'asc' | 'desc';

  @OptionalInteger(1, 1000)
  limit?: number;

  @IsOptional()
  @IsNumberString({ no_symbols: true })
  offset?: string;

  @IsOptional()
  @IsString()
  level?: string;

  @IsOptional()
  @IsString()
  query?: string;

  @IsOptional()
  @IsDateString()
  start_time?: string;

  @IsOptional()
  @IsDateString()
  end_time?: string;
}
