import { PageDto } from '../common/page.dto.js';
import { IsArray, IsIn, IsObject, IsOptional, IsString, Matches } from 'class-validator';
import type { JsonObject } from '#libs/event-store';

const ASSISTANT_FIELDS = [
  'assistant_id',
  'graph_id',
  'name',
  'description',
  'config',
  'context',
  'metadata',
  'version',
  'created_at',
  'updated_at',
];

export class SearchAssistantsDto extends PageDto {
  @IsOptional()
  @IsString()
  graph_id?: string;

  @IsOptional()
  @IsString()
  name?: string;

  @IsOptional()
  @IsObject()
  metadata?: JsonObject;

  @IsOptional()
  @IsIn(['assistant_id', 'graph_id', 'name', 'created_at', 'updated_at'])
  sort_by?: 'assistant_id' | 'graph_id' | 'name' | 'created_at' | 'updated_at';

  @IsOptional()
  @IsArray()
  @IsIn(ASSISTANT_FIELDS, { each: true })
  select?: string[];

  @IsOptional()
  @IsIn(['asc', 'desc'])
  sort_order?: 'asc' | 'desc';
}

export class ListVersionsDto extends PageDto {
  @IsOptional()
  @IsObject()
  metadata?: JsonObject;
}

export class AssistantGraphQueryDto {
  /** `true`, `false`, or how many levels of subgraphs to draw inside. */
  @IsOptional()
  @Matches(/^(true|false|\d{1,3})$/, { message: 'xray must be true, false or a depth (0-999)' })
  xray?: string;
}

export class AssistantSubgraphsQueryDto {
  @IsOptional()
  @IsIn(['true', 'false'])
  recurse?: 'true' | 'false';
}
