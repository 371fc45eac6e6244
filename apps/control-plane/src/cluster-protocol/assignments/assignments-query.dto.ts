import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { MAX_WAIT_SECONDS } from './cluster-assignments.service.js';

/** `GET /v2/listeners/{listener_id}/assignments`. */
export class AssignmentsQueryDto {
  /** The `etag` of the assignments the listener has: the poll waits for a change from them. */
  @IsOptional()
  @IsString()
  @MaxLength(64)
  after?: string;

  /** Seconds to wait for a change (0: answer at once). */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(MAX_WAIT_SECONDS)
  wait?: number;
}
