import { IsIn, IsOptional } from 'class-validator';

export class DeleteAssistantQueryDto {
  @IsOptional()
  @IsIn(['true', 'false'])
  delete_threads?: 'true' | 'false';
}
