import { Command } from '@nestjs/cqrs';
import type { Caller } from '../../tenancy/tenant-directory.js';
import type { ReportProgressDto } from './report-progress.dto.js';

/** What a deployment's status is after a report: its revision's, or `DELETED`. */
export interface ReportedProgress {
  readonly deployment_id: string;
  readonly revision_id: string | null;
  readonly status: string;
}

/** A cluster listener reports how it went with one of its deployments. */
export class ReportProgress extends Command<ReportedProgress> {
  constructor(
    readonly caller: Caller,
    readonly listenerId: string,
    readonly report: ReportProgressDto,
  ) {
    super();
  }
}
