import { Controller, Get, Inject, ParseUUIDPipe, Query } from '@nestjs/common';
import { Returns } from '#libs/http';
import {
  answerExport,
  answerVerification,
  EventStore,
  type AuditRecord,
  type VerificationAnswer,
} from '#libs/event-store';
import { DeploymentQueries } from '../deployments/deployment-queries.service.js';
import { deploymentStream } from '../deployments/domain/deployment.events.js';
import { CurrentCaller } from '../tenancy/caller.js';
import type { Caller } from '../tenancy/tenant-directory.js';

/** `/v2/audit`: the platform's event log against its hash chain (docs/audit.md). */
@Controller('v2/audit')
export class AuditController {
  constructor(
    @Inject(EventStore) private readonly store: EventStore,
    @Inject(DeploymentQueries) private readonly deployments: DeploymentQueries,
  ) {}

  @Returns('AuditVerification')
  @Get('verify')
  verify(@Query('head') head?: string): Promise<VerificationAnswer> {
    return answerVerification(this.store, head);
  }

  /** A deployment of the caller's tenant: its events in the period, with their chain positions. */
  @Returns('AuditExport')
  @Get('export')
  async export(
    @CurrentCaller() caller: Caller,
    @Query('deployment_id', new ParseUUIDPipe()) deploymentId: string,
    @Query('since') since?: string,
    @Query('until') until?: string,
  ): Promise<{ resources: AuditRecord[] }> {
    await this.deployments.stateOf(caller, deploymentId);
    return answerExport(this.store, deploymentStream(deploymentId), since, until);
  }
}
