import { Type } from 'class-transformer';
import { IsObject, IsOptional, ValidateNested } from 'class-validator';
import type { JsonObject } from '#libs/event-store';
import { ThreadTtlDto } from '../threads.dto.js';

export class UpdateThreadDto {
  @IsOptional()
  @IsObject()
  metadata?: JsonObject;

  @IsOptional()
  @ValidateNested()
  @Type(() => ThreadTtlDto)
  ttl?: ThreadTtlDto;
}
