import { ArrayMaxSize, IsArray, IsOptional, IsString, MaxLength } from 'class-validator';
import { MAX_KEY, MAX_LABELS } from '../store.dto.js';

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
