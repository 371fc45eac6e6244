import { IsBoolean, IsDateString, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { CreateRunDto } from '../../runs/create-run/create-run.dto.js';

/** A cron: a schedule, and the run each of its ticks creates (the fields of `POST /runs`). */
export class CreateCronDto extends CreateRunDto {
  /** A 5-field cron expression: minute, hour, day of month, month, day of week. */
  @IsString()
  @MaxLength(200)
  schedule!: string;

  /** IANA name; the schedule is in UTC without one. */
  @IsOptional()
  @IsString()
  @MaxLength(100)
  timezone?: string;

  @IsOptional()
  @IsDateString({ strict: true })
  end_time?: string;

  @IsOptional()
  @IsBoolean()
  enabled?: boolean;

  /** Stateless crons: `delete` (default) or `keep` each tick's thread after its run. */
  @IsOptional()
  @IsIn(['delete', 'keep'])
  on_run_completed?: 'delete' | 'keep';
}
