import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsOptional } from 'class-validator';

export class CancelRunDto {
  @IsOptional()
  @Transform(({ value }) => value === true || value === 'true' || value === '1')
  @IsBoolean()
  wait?: boolean;

  @IsOptional()
  @IsIn(['interrupt', 'rollback'])
  action?: 'interrupt' | 'rollback';
}
