import { Controller, Get, HttpException, Inject, Query } from '@nestjs/common';
import { Returns } from '#libs/http';
import {
  answerVerification,
  AuditRequestError,
  EventStore,
  type VerificationAnswer,
} from '#libs/event-store';

/** `GET /v2/audit/verify`: the platform's event log against its hash chain (docs/audit.md). */
@Controller('v2/audit')
export class AuditController {
  constructor(@Inject(EventStore) private readonly store: EventStore) {}

  @Returns('AuditVerification')
  @Get('verify')
  async verify(@Query('head') head?: string): Promise<VerificationAnswer> {
    try {
      return await answerVerification(this.store, head);
    } catch (error) {
      if (error instanceof AuditRequestError) throw new HttpException(error.message, error.status);
      throw error;
    }
  }
}
