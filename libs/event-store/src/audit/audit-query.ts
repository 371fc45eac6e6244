import { AuditUnavailableError } from './event-log-audit.js';
import type { EventStore } from '../event-store.port.js';
import { parseHead, verificationAnswer, type VerificationAnswer } from './chain-report.js';

/** Why a verification request cannot be answered: a 400 (`head` malformed) or a 501. */
export class AuditRequestError extends Error {
  constructor(
    readonly status: 400 | 501,
    message: string,
  ) {
    super(message);
    this.name = 'AuditRequestError';
  }
}

/** `GET .../audit/verify[?head=position:hash]`, for the routes of either app. */
export async function answerVerification(
  store: EventStore,
  head: string | undefined,
): Promise<VerificationAnswer> {
  const published = head === undefined ? undefined : parseHead(head);
  if (head !== undefined && !published) {
    throw new AuditRequestError(400, 'head must be position:hash (a 64-digit hex sha256)');
  }
  let audit;
  try {
    audit = store.audit();
  } catch (error) {
    if (error instanceof AuditUnavailableError) throw new AuditRequestError(501, error.message);
    throw error;
  }
  return verificationAnswer(await audit.verify(published));
}
