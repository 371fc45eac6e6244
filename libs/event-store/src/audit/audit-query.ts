import { badRequest, DomainError } from '#libs/domain';
import { AuditUnavailableError, type EventLogAudit } from './event-log-audit.js';
import type { EventStore } from '../event-store.port.js';
import { parseHead, verificationAnswer, type VerificationAnswer } from './chain-report.js';
import type { AuditRecord, ExportPeriod } from './postgres.chain-export.js';

/** `GET .../audit/verify[?head=position:hash]`, for the routes of either app. */
export async function answerVerification(
  store: EventStore,
  head: string | undefined,
): Promise<VerificationAnswer> {
  const published = head === undefined ? undefined : parseHead(head);
  if (head !== undefined && !published) {
    throw badRequest('head must be position:hash (a 64-digit hex sha256)');
  }
  return verificationAnswer(await auditOf(store).verify(published));
}

/** `GET /v2/audit/export`: a stream's events in a period (ISO 8601 times), with their links. */
export async function answerExport(
  store: EventStore,
  streamId: string,
  since: string | undefined,
  until: string | undefined,
): Promise<{ resources: AuditRecord[] }> {
  const period: ExportPeriod = { since: timeOf('since', since), until: timeOf('until', until) };
  if (period.since && period.until && period.since > period.until) {
    throw badRequest('since must not be after until');
  }
  return { resources: await auditOf(store).exportStream(streamId, period) };
}

function timeOf(name: string, text: string | undefined): Date | undefined {
  if (text === undefined) return undefined;
  const time = new Date(text);
  if (!/^\d{4}-\d\d-\d\d/.test(text) || Number.isNaN(time.getTime())) {
    throw badRequest(`${name} must be an ISO 8601 date or time, got "${text}"`);
  }
  return time;
}

function auditOf(store: EventStore): EventLogAudit {
  try {
    return store.audit();
  } catch (error) {
    if (error instanceof AuditUnavailableError)
      throw new DomainError('not_implemented', error.message);
    throw error;
  }
}
