import { Injectable, Inject } from '@nestjs/common';
import { EventStore, type RecordedEvent } from '#libs/event-store';
import {
  REVISION_LOG_EVENT,
  revisionLogStream,
  type LogLine,
  type LogType,
} from './revision-log.js';

export type LogRecord = LogLine & { id: string };

function recordsOf(event: RecordedEvent, type: LogType | undefined): LogRecord[] {
  if (event.type !== REVISION_LOG_EVENT) return [];
  const lines = (event.data.lines ?? []) as LogLine[];
  return lines
    .map((line, index) => ({ ...line, id: `${event.streamPosition}.${index}` }))
    .filter((line) => !type || line.type === type);
}

/** Reads a revision's logs, or follows them as they are written. */
@Injectable()
export class RevisionLogs {
  constructor(@Inject(EventStore) private readonly store: EventStore) {}

  async read(revisionId: string, type: LogType | undefined): Promise<LogRecord[]> {
    const events = await this.store.readStream(revisionLogStream(revisionId));
    return events.flatMap((event) => recordsOf(event, type));
  }

  async *follow(
    revisionId: string,
    type: LogType | undefined,
    signal: AbortSignal,
  ): AsyncGenerator<LogRecord> {
    const subscription = this.store.subscribeToStream(revisionLogStream(revisionId));
    const stop = (): void => void subscription.close();
    signal.addEventListener('abort', stop, { once: true });
    try {
      for await (const event of subscription) {
        yield* recordsOf(event, type);
      }
    } finally {
      signal.removeEventListener('abort', stop);
      await subscription.close();
    }
  }
}
