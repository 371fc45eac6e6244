import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { AppendNotice, AppendSignals } from '../append-signals.js';
import { formatLogPosition, parseLogPosition } from '../log-position.js';

const CHANNEL = 'berth_es_appended';
/** The application name of every listening connection: how processes find each other. */
const LISTENER_NAME = 'berth-es-listener';
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
  /** A process that just started listening: whoever hears it notifies again. */
  hello?: true;
}

export interface AppendChannelOptions {
  /** At most one NOTIFY per interval: a notification inside every append would serialise commits. */
  readonly coalesceMs: number;
  /** How often the processes listening on the database are counted. */
  readonly censusMs: number;
  readonly onError: (error: unknown) => void;
}

/**
 * Tells other processes on the same database that appends were committed, with one coalesced
 * NOTIFY sent after commit, and relays their notices to this process's subscriptions.
 *
 * A process alone on its database sends no NOTIFY: every listening connection carries one
 * application name, counted every `censusMs`, and a process that starts listening says hello so
 * that the others notify again at once instead of at their next count.
 */
export class PostgresAppendChannel {
  private readonly instanceId = randomUUID();
  private pending: AppendNotice[] = [];
  private flushTimer: NodeJS.Timeout | undefined;
  private lastFlushAt = 0;
  private listener: pg.Client | undefined;
  private listening: Promise<void> | undefined;
  private closed = false;
  /** Whether another process may be listening; until counted, assume so. */
  private othersListening = true;
  /** Messages heard from other processes, so a count taken before one is not trusted after it. */
  private heard = 0;
  private census: NodeJS.Timeout | undefined;
  /** The backend of this process's listening connection, which the count leaves out. */
  private listenerPid = 0;
  /** Appends went unannounced while this process believed itself alone. */
  private unannounced = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly connectionConfig: pg.ClientConfig,
    private readonly signals: AppendSignals,
    private readonly options: AppendChannelOptions,
  ) {}

  announce(notice: AppendNotice): void {
    if (this.closed) return;
    this.countListeners();
    if (!this.othersListening) {
      this.unannounced = true;
      return;
    }
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
    clearInterval(this.census);
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => undefined);
  }

  private flush(): void {
    this.flushTimer = undefined;
    this.lastFlushAt = Date.now();
    const notices = this.pending;
    this.pending = [];
    if (!this.othersListening) return;
    this.notify(this.encode(notices));
  }

  private notify(payload: string): void {
    this.pool.query('select pg_notify($1, $2)', [CHANNEL, payload]).catch((error: unknown) => {
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

  /** Starts counting the other processes' listeners, once. */
  private countListeners(): void {
    if (this.census || this.closed) return;
    this.census = setInterval(() => void this.takeCensus(), this.options.censusMs);
    this.census.unref();
    void this.takeCensus();
  }

  private async takeCensus(): Promise<void> {
    const heardBefore = this.heard;
    try {
      const { rows } = await this.pool.query<{ others: number }>(
        `select count(*)::int as others from pg_stat_activity
          where datname = current_database() and application_name = $1 and pid <> $2`,
        [LISTENER_NAME, this.listenerPid],
      );
      const others = (rows[0]?.others ?? 1) > 0;
      if (others) this.othersFound();
      else if (this.heard === heardBefore) this.othersListening = false;
    } catch (error) {
      this.othersFound();
      if (!this.closed) this.options.onError(error);
    }
  }

  private async connectListener(): Promise<void> {
    const client = new pg.Client({ ...this.connectionConfig, application_name: LISTENER_NAME });
    client.on('notification', (message) => {
      this.relay(message.payload);
    });
    client.on('error', (error) => {
      this.options.onError(error);
      this.reconnect(client);
    });
    await client.connect();
    await client.query(`listen ${CHANNEL}`);
    const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
    this.listenerPid = rows[0]?.pid ?? 0;
    this.listener = client;
    this.countListeners();
    this.notify(JSON.stringify({ from: this.instanceId, hello: true } satisfies WirePayload));
  }

  /**
   * Another process listens. Appends made while this one thought itself alone (a newcomer may
   * have subscribed just before them) are told as a notice without positions: its subscriptions
   * read again instead of waiting for their poll.
   */
  private othersFound(): void {
    this.othersListening = true;
    if (!this.unannounced) return;
    this.unannounced = false;
    this.notify(JSON.stringify({ from: this.instanceId } satisfies WirePayload));
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
    this.heard += 1;
    this.othersFound();
    if (message.hello) return;
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
