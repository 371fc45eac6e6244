import { Controller, Get, Inject, Param, ParseUUIDPipe, Query } from '@nestjs/common';
import { IsOptional, IsUUID } from 'class-validator';
import { Returns } from '#libs/http';
import type { RevisionChanges } from '../deployments/domain/revision-changes.js';
import { CurrentCaller } from '../tenancy/caller.js';
import type { Caller } from '../tenancy/tenant-directory.js';
import { RevisionChangesService } from './revision-changes.service.js';

export class RevisionChangesQueryDto {
  /** The revision to compare with; the one this revision replaced when not given. */
  @IsOptional()
  @IsUUID()
  against?: string;
}

@Controller()
export class RevisionChangesController {
  constructor(@Inject(RevisionChangesService) private readonly service: RevisionChangesService) {}

  @Returns('RevisionChanges')
  @Get('v2/deployments/:deployment_id/revisions/:revision_id/changes')
  changes(
    @CurrentCaller() caller: Caller,
    @Param('deployment_id', new ParseUUIDPipe()) deploymentId: string,
    @Param('revision_id', new ParseUUIDPipe()) revisionId: string,
    @Query() query: RevisionChangesQueryDto,
  ): Promise<RevisionChanges> {
    return this.service.changes(caller, deploymentId, revisionId, query.against);
  }
}
