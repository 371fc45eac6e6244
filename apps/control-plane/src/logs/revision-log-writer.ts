import { EventStore, uuidv7 } from '#libs/event-store';
import {
  REVISION_LOG_EVENT,
  revisionLogStream,
  type LogLine,
  type LogType,
} from './revision-log.js';
import type { HostDetails } from './host-details.js';
import { SecretMasker } from './secret-masker.js';

const FLUSH_MS = 100;
const MAX_LINE = 8192;

/**
 * Collects a revision's build and deploy output (whole lines: commands' output is read line by
 * line) and appends it to the revision's log stream in batches. Known secret values are masked in
 * every form before anything is stored.
 */
export interface RevisionLogOptions {
  readonly secretValues: readonly string[];
  /** What of the host the lines must not show; nothing is hidden without it. */
  readonly hostDetails?: HostDetails;
  readonly onError: (error: unknown) => void;
}

export class RevisionLogWriter {
  private pending: LogLine[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private readonly masker: SecretMasker;

  constructor(
    private readonly store: EventStore,
    private readonly revisionId: string,
    private readonly options: RevisionLogOptions,
  ) {
    this.masker = new SecretMasker(options.secretValues);
  }

  /** Text as a tenant may see it: secrets masked, host paths and addresses hidden. */
  redact(text: string): string {
    const masked = this.masker.mask(text);
    return this.options.hostDetails ? this.options.hostDetails.scrub(masked) : masked;
  }

  write(type: LogType, message: string): void {
    for (const line of message.replace(/\r/g, '').split('\n')) {
      if (!line.trim()) continue;
      this.pending.push({ timestamp: new Date().toISOString(), type, message: this.mask(line) });
    }
    this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS);
  }

  /** Appends what is pending; resolves when everything written so far is stored. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const lines = this.pending.splice(0);
    if (lines.length > 0) {
      this.flushing = this.flushing.then(() =>
        this.store
          .append(revisionLogStream(this.revisionId), [
            { eventId: uuidv7(), type: REVISION_LOG_EVENT, data: { lines } },
          ])
          .then(
            () => undefined,
            (error: unknown) => {
              this.options.onError(error);
            },
          ),
      );
    }
    return this.flushing;
  }

  private mask(line: string): string {
    const redacted = this.redact(line);
    return redacted.length > MAX_LINE ? `${redacted.slice(0, MAX_LINE)}…` : redacted;
  }
}
