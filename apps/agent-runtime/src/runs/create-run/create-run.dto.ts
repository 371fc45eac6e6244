import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import {
  Equals,
  IsBoolean,
  IsIn,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  Max,
  Min,
  ValidateIf,
} from 'class-validator';
import type { JsonObject, JsonValue } from '#libs/event-store';
import { toNormalizedId } from '../../common/id.pipe.js';
import { STREAM_MODES, type Durability, type StreamMode } from '../../execution/graph-stream.js';
import { IsWebhookTarget } from '../../common/webhook-target.js';
import { MAX_RUN_TIMEOUT_SECONDS } from '../../common/run-timeout.js';

/** A year: a delay beyond it is a mistake, not a schedule (crons are for schedules). */
const MAX_DELAY_SECONDS = 365 * 24 * 60 * 60;

const asList = ({ value }: { value: unknown }): unknown =>
  value === undefined || value === null || Array.isArray(value) ? value : [value];

const isNodeList = (value: unknown): boolean =>
  value === '*' || (Array.isArray(value) && value.every((item) => typeof item === 'string'));

/** An optional `"*"` or list of node names (`interrupt_before`, `interrupt_after`). */
export const NodeNamesOrAll = (field: string): PropertyDecorator =>
  applyDecorators(
    IsOptional(),
    ValidateIf((_, value) => !isNodeList(value)),
    IsIn(['*'], { message: `${field} must be "*" or a list of node names` }),
  );

export class CreateRunDto {
  @Transform(toNormalizedId)
  @IsString()
  assistant_id!: string;

  @IsOptional()
  input?: JsonValue;

  @IsOptional()
  @IsObject()
  command?: JsonObject;

  @IsOptional()
  @IsObject()
  config?: JsonObject;

  @IsOptional()
  @IsObject()
  context?: JsonObject;

  @IsOptional()
  @IsObject()
  metadata?: JsonObject;

  @IsOptional()
  @Transform(asList)
  @IsIn(STREAM_MODES, { each: true })
  stream_mode?: StreamMode[];

  @IsOptional()
  @IsBoolean()
  stream_subgraphs?: boolean;

  @NodeNamesOrAll('interrupt_before')
  interrupt_before?: string[] | '*';

  @NodeNamesOrAll('interrupt_after')
  interrupt_after?: string[] | '*';

  @IsOptional()
  @IsIn(['reject', 'enqueue', 'interrupt', 'rollback'])
  multitask_strategy?: 'reject' | 'enqueue' | 'interrupt' | 'rollback';

  @IsOptional()
  @IsWebhookTarget()
  webhook?: string;

  @IsOptional()
  @IsIn(['reject', 'create'])
  if_not_exists?: 'reject' | 'create';

  @IsOptional()
  @IsIn(['cancel', 'continue'])
  on_disconnect?: 'cancel' | 'continue';

  @IsOptional()
  @IsString()
  checkpoint_id?: string;

  @IsOptional()
  @Transform(asList)
  @IsString({ each: true })
  feedback_keys?: string[];

  /** Start from this checkpoint (its `checkpoint_id`) instead of the thread's latest. */
  @IsOptional()
  @IsObject()
  checkpoint?: JsonObject;

  /** Every run's stream is kept and can be resumed: accepted for compatibility. */
  @IsOptional()
  @IsBoolean()
  stream_resumable?: boolean;

  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(MAX_DELAY_SECONDS)
  after_seconds?: number;

  @IsOptional()
  @IsBoolean()
  checkpoint_during?: boolean;

  @IsOptional()
  @IsIn(['sync', 'async', 'exit'])
  durability?: Durability;

  /** Stateless runs: delete the run's thread when it ends (the default), or keep it. */
  @IsOptional()
  @IsIn(['delete', 'keep'])
  on_completion?: 'delete' | 'keep';

  /** Seconds the run may take before it ends as `timeout` (the runtime's default otherwise). */
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(1)
  @Max(MAX_RUN_TIMEOUT_SECONDS)
  timeout_seconds?: number;

  @IsOptional()
  @Equals(undefined, {
    message:
      "langsmith_tracer is not supported: runs are reported to the deployment's tracing project",
  })
  langsmith_tracer?: unknown;
}
