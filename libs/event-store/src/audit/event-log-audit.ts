import type { ChainHead, ChainVerification } from './chain-report.js';
import type { AuditRecord, ExportPeriod } from './postgres.chain-export.js';

/** The tamper evidence of an event log (docs/audit.md). */
export interface EventLogAudit {
  /**
   * Seals what was committed so far, then walks the whole chain against the stored log; with
   * `published`, checks as well that the log still hashes to that head.
   */
  verify(published?: ChainHead): Promise<ChainVerification>;

  /**
   * One stream's events recorded in the period, with their chain positions and hashes, after
   * sealing what was committed.
   */
  exportStream(streamId: string, period: ExportPeriod): Promise<AuditRecord[]>;
}

/** The log's adapter keeps no chain; the message says why. */
export class AuditUnavailableError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'AuditUnavailableError';
  }
}
