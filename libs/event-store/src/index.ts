export * from './event-store.port.js';
export * from './event-store.errors.js';
export * from './log-position.js';
export {
  PostgresEventStore,
  type PostgresEventStoreOptions,
} from './postgres/postgres.event-store.js';
export type { Projection } from './projections/projection.js';
export {
  ProjectionRunner,
  ProjectionTimeoutError,
  type ProjectionRunnerOptions,
} from './projections/projection-runner.js';
export { rebuildTogether } from './projections/rebuild-together.js';
export {
  describeProjectionFailure,
  ProjectionStuckError,
  type FailedEvent,
  type ProjectionFailure,
} from './projections/projection-failure.js';
export { PROJECTION_MIGRATIONS } from './projections/projection-checkpoints.js';
export { migrate } from './postgres/postgres.migrator.js';
export type { Migration } from './postgres/postgres.schema.js';
export {
  connectEventStore,
  isEventStoreDbUrl,
  type EventStoreConnection,
} from './event-store.factory.js';
export { uuidv7 } from './uuid-v7.js';
export {
  foldCacheOf,
  foldStream,
  handleCommand,
  type Appender,
  type CommandOutcome,
  type CommandRequest,
} from './decider.js';
export {
  AggregateCommands,
  type AggregateOptions,
  type CommandContext,
} from './aggregate-commands.js';
export type { Decider, DomainEvent } from '#libs/domain';
export { FoldedStreamCache, type FoldedStream } from './folded-stream-cache.js';
export { AuditUnavailableError, type EventLogAudit } from './audit/event-log-audit.js';
export {
  describeVerification,
  formatHead,
  parseHead,
  verificationAnswer,
  type ChainHead,
  type ChainVerification,
  type VerificationAnswer,
} from './audit/chain-report.js';
export type { BreakKind, ChainBreak } from './audit/chain-judge.js';
export { answerExport, answerVerification } from './audit/audit-query.js';
export type { AuditRecord, ExportPeriod } from './audit/postgres.chain-export.js';
