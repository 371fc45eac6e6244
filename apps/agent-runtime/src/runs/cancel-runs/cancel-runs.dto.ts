import { Transform } from 'class-transformer';
import { IsArray, IsIn, IsOptional, IsUUID } from 'class-validator';
import { toNormalizedId } from '../../common/id.pipe.js';

export class CancelManyRunsDto {
  @IsOptional()
  @Transform(toNormalizedId)
  @IsUUID()
  thread_id?: string;

  @IsOptional()
  @IsArray()
  @Transform(toNormalizedId)
  @IsUUID('all', { each: true })
  run_ids?: string[];

  @IsOptional()
  @IsIn(['pending', 'running', 'all'])
  status?: 'pending' | 'running' | 'all';
}
