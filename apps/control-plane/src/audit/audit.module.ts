import { Module } from '@nestjs/common';
import { DeploymentsModule } from '../deployments/deployments.module.js';
import { AuditController } from './audit.controller.js';

/** `/v2/audit`: the tamper evidence of the platform's event log, and audit trails' export. */
@Module({ imports: [DeploymentsModule], controllers: [AuditController] })
export class AuditModule {}
