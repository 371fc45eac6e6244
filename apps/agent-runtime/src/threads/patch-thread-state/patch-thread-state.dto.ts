import { IsObject } from 'class-validator';
import type { JsonObject } from '#libs/event-store';

export class PatchThreadStateDto {
  @IsObject()
  metadata!: JsonObject;
}
