import { Controller, Get, Inject, Query } from '@nestjs/common';
import { Returns } from '#libs/http';
import { answerVerification, EventStore, type VerificationAnswer } from '#libs/event-store';

/** `GET /audit/verify`: this runtime's event log against its hash chain (docs/audit.md). */
@Controller('audit')
export class AuditController {
  constructor(@Inject(EventStore) private readonly store: EventStore) {}

  @Returns('AuditVerification')
  @Get('verify')
  verify(@Query('head') head?: string): Promise<VerificationAnswer> {
    return answerVerification(this.store, head);
  }
}
