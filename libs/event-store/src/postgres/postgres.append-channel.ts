import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { AppendNotice, AppendSignals } from '../append-signals.js';
import { formatLogPosition, parseLogPosition } from '../log-position.js';

const CHANNEL = 'berth_es_appended';
const RECONNECT_DELAY_MS = 500;
const PAYLOAD_LIMIT = 7000; // NOTIFY payloads must stay under 8000 bytes

interface WireNotice {
  s: string;
  p: number;
  l: string;
}

interface WirePayload {
  from: string;
  notices?: WireNotice[];
}

export interface AppendChannelOptions {
  /** At most one NOTIFY per interval: a notification inside every append would serialise commits. */
  readonly coalesceMs: number;
  readonly onError: (error: unknown) => void;
}

/**
 * Tells other processes on the same database that appends were committed, with one coalesced
 * NOTIFY sent after commit, and relays their notices to this process's subscriptions.
 */
export class PostgresAppendChannel {
  private readonly instanceId = randomUUID();
  private pending: AppendNotice[] = [];
  private flushTimer: NodeJS.Timeout | undefined;
  private lastFlushAt = 0;
  private listener: pg.Client | undefined;
  private listening: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly connectionConfig: pg.ClientConfig,
    private readonly signals: AppendSignals,
    private readonly options: AppendChannelOptions,
  ) {}

  announce(notice: AppendNotice): void {
    if (this.closed) return;
    this.pending.push(notice);
    if (this.flushTimer) return;
    const wait = Math.max(0, this.lastFlushAt + this.options.coalesceMs - Date.now());
    this.flushTimer = setTimeout(() => {
      this.flush();
    }, wait);
  }

  /** Starts relaying other processes' appends; called when this process first subscribes. */
  listen(): Promise<void> {
    this.listening ??= this.connectListener();
    return this.listening;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.flushTimer);
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => undefined);
  }

  private flush(): void {
    this.flushTimer = undefined;
    this.lastFlushAt = Date.now();
    const notices = this.pending;
    this.pending = [];
    this.pool
      .query('select pg_notify($1, $2)', [CHANNEL, this.encode(notices)])
      .catch((error: unknown) => {
        if (!this.closed) this.options.onError(error);
      });
  }

  private encode(notices: AppendNotice[]): string {
    const payload: WirePayload = {
      from: this.instanceId,
      notices: notices.map((n) => ({
        s: n.streamId,
        p: n.streamPosition,
        l: formatLogPosition(n.logPosition),
      })),
    };
    const text = JSON.stringify(payload);
    return text.length <= PAYLOAD_LIMIT ? text : JSON.stringify({ from: this.instanceId });
  }

  private async connectListener(): Promise<void> {
    const client = new pg.Client(this.connectionConfig);
    client.on('notification', (message) => {
      this.relay(message.payload);
    });
    client.on('error', (error) => {
      this.options.onError(error);
      this.reconnect(client);
    });
    await client.connect();
    await client.query(`listen ${CHANNEL}`);
    this.listener = client;
  }

  private reconnect(broken: pg.Client): void {
    if (this.closed || this.listener !== broken) return;
    this.listener = undefined;
    broken.end().catch(() => undefined);
    // While the listener is down subscriptions poll; anything may have been appended meanwhile.
    this.signals.publishUnknown();
    const attempt = (): void => {
      if (this.closed) return;
      this.listening = this.connectListener();
      this.listening.catch((error: unknown) => {
        this.options.onError(error);
        setTimeout(attempt, RECONNECT_DELAY_MS);
      });
    };
    setTimeout(attempt, RECONNECT_DELAY_MS);
  }

  private relay(payload: string | undefined): void {
    if (!payload) return;
    const message = JSON.parse(payload) as WirePayload;
    if (message.from === this.instanceId) return;
    if (!message.notices) {
      this.signals.publishUnknown();
      return;
    }
    for (const notice of message.notices) {
      this.signals.publish({
        streamId: notice.s,
        streamPosition: notice.p,
        logPosition: parseLogPosition(notice.l),
      });
    }
  }
}
