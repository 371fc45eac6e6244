import { Module } from '@nestjs/common';
import { AuditController } from './audit.controller.js';

/** `/audit`: the tamper evidence of this runtime's event log. */
@Module({ controllers: [AuditController] })
export class AuditModule {}
