import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsISO8601,
  IsOptional,
  IsString,
  IsUUID,
  ValidateNested,
} from 'class-validator';

export class TracedRunDto {
  @IsUUID()
  run_id!: string;

  @IsOptional()
  @IsUUID()
  thread_id!: string | null;

  @IsOptional()
  @IsString()
  assistant_id!: string | null;

  @IsIn(['pending', 'running', 'success', 'error', 'timeout', 'interrupted'])
  status!: string;

  @IsOptional()
  @IsInt()
  attempt!: number | null;

  @IsISO8601()
  created_at!: string;

  @IsOptional()
  @IsISO8601()
  started_at!: string | null;

  @IsOptional()
  @IsISO8601()
  finished_at!: string | null;
}

export class TracedRunsDto {
  @IsArray()
  @ArrayMaxSize(1000)
  @ValidateNested({ each: true })
  @Type(() => TracedRunDto)
  runs!: TracedRunDto[];
}
