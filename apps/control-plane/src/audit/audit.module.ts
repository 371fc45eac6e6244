import { Module } from '@nestjs/common';
import { AuditController } from './audit.controller.js';

/** `/v2/audit`: the tamper evidence of the platform's event log. */
@Module({ controllers: [AuditController] })
export class AuditModule {}
