import { Transform } from 'class-transformer';
import { IsArray, IsIn, IsOptional } from 'class-validator';
import { toQueryList } from '../common/query-list.js';
import { STREAM_MODES, type StreamMode } from '../execution/graph-stream.js';
import { PageDto } from '../common/page.dto.js';
import { THREAD_STREAM_MODES, type ThreadStreamMode } from '../threads/thread-stream-reader.js';

const RUN_FIELDS = [
  'run_id',
  'thread_id',
  'assistant_id',
  'created_at',
  'updated_at',
  'metadata',
  'status',
  'kwargs',
  'multitask_strategy',
];

export class ListRunsDto extends PageDto {
  @IsOptional()
  @IsIn(['pending', 'running', 'success', 'error', 'interrupted', 'timeout'])
  status?: string;

  @IsOptional()
  @Transform(toQueryList)
  @IsArray()
  @IsIn(RUN_FIELDS, { each: true })
  select?: string[];
}

export class CancelActionDto {
  @IsOptional()
  @IsIn(['interrupt', 'rollback'])
  action?: 'interrupt' | 'rollback';
}

/** The query of a thread's stream: its runs' events, their start and end, its state changes. */
export class ThreadStreamQueryDto {
  @IsOptional()
  @Transform(toQueryList)
  @IsIn(THREAD_STREAM_MODES, { each: true })
  stream_mode?: ThreadStreamMode[];

  /** The name the platform's API reference gives the same list. */
  @IsOptional()
  @Transform(toQueryList)
  @IsIn(THREAD_STREAM_MODES, { each: true })
  stream_modes?: ThreadStreamMode[];
}

/** The query of a join: what to stream, and whether leaving cancels the run. */
export class JoinStreamQueryDto {
  @IsOptional()
  @Transform(toQueryList)
  @IsIn(STREAM_MODES, { each: true })
  stream_mode?: StreamMode[];

  @IsOptional()
  @IsIn(['0', '1', 'true', 'false'])
  cancel_on_disconnect?: '0' | '1' | 'true' | 'false';
}
