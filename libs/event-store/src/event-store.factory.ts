import type { EventStore } from './event-store.port.js';
import { PostgresEventStore } from './postgres/postgres.event-store.js';

export interface EventStoreConnection {
  /** An `esdb://` or `kurrentdb://` URL selects EventStoreDB; without one the log lives in PostgreSQL. */
  readonly eventStoreUrl?: string;
  readonly databaseUrl: string;
  /** The most connections the PostgreSQL event store's pool opens (10 by default). */
  readonly poolSize?: number;
  readonly onError?: (error: unknown) => void;
}

const EVENTSTOREDB_SCHEMES = ['esdb:', 'esdb+discover:', 'kurrentdb:', 'kurrentdb+discover:'];

export function isEventStoreDbUrl(url: string): boolean {
  return EVENTSTOREDB_SCHEMES.some((scheme) => url.startsWith(`${scheme}//`));
}

export async function connectEventStore(connection: EventStoreConnection): Promise<EventStore> {
  const { eventStoreUrl } = connection;
  if (eventStoreUrl) {
    if (!isEventStoreDbUrl(eventStoreUrl)) {
      throw new Error(
        `EVENTSTORE_URL must be an esdb:// connection string, got ${eventStoreUrl.split(':')[0]}:`,
      );
    }
    // Loaded only when chosen: the gRPC client is heavy and most installations never use it.
    const { EventStoreDbEventStore } = await import('./eventstoredb/eventstoredb.event-store.js');
    return EventStoreDbEventStore.fromConnectionString(eventStoreUrl);
  }
  return PostgresEventStore.connect({
    connectionString: connection.databaseUrl,
    poolSize: connection.poolSize,
    onError: connection.onError,
  });
}
