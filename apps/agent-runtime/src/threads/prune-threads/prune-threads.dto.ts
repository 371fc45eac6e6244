import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsOptional, IsUUID } from 'class-validator';
import { toNormalizedId } from '../../common/id.pipe.js';

/** `POST /threads/prune`: threads to delete, by id. */
export class PruneThreadsDto {
  @IsArray()
  @ArrayMaxSize(1000)
  @Transform(toNormalizedId)
  @IsUUID('all', { each: true })
  thread_ids!: string[];

  /** `keep_latest` (old checkpoints dropped, threads kept) is refused: the log keeps them all. */
  @IsOptional()
  @IsIn(['delete'], {
    message:
      'strategy must be "delete": "keep_latest" (dropping all but the latest checkpoint) is not supported, Berth keeps every checkpoint in its log',
  })
  strategy?: 'delete';
}
