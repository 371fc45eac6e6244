import type { WebSocket } from 'ws';
import type { JsonObject } from '#libs/event-store';
import { matchesFilter } from '../protocol-events/event-filter.js';
import { parseProtocolCommand } from './protocol-command.parse.js';
import {
  ProtocolError,
  protocolFailure,
  protocolSuccess,
  type ProtocolCommand,
  type ProtocolEvent,
  type ProtocolResponse,
} from '../protocol-events/protocol-event.js';
import { parseSubscription, type SubscriptionRequest } from './subscription-params.js';

/** A replay longer than this is answered before it ends, without its count. */
const MAX_COUNTED_REPLAY = 5_000;

/** Past this many bytes waiting in the socket, a subscription waits before sending more. */
const HIGH_WATER_BYTES = 4 * 1024 * 1024;

export interface ProtocolSocketDeps {
  /** Serves a command that is not about subscriptions (`run.start`, `state.get`, …). */
  readonly command: (command: ProtocolCommand) => Promise<ProtocolResponse>;
  /** The thread's protocol events from `since`, or from its latest run; told when replayed. */
  readonly open: (
    since: number | undefined,
    signal: AbortSignal,
    onCaughtUp: () => void,
  ) => Promise<AsyncIterable<ProtocolEvent>>;
}

interface ActiveSubscription {
  readonly commandId: number;
  readonly request: SubscriptionRequest;
  /** Events up to this seq are not for it (`since`, or a reconnect's `last_event_id`). */
  since: number | undefined;
  answered: boolean;
}

const wants = (subscription: ActiveSubscription, event: ProtocolEvent): boolean =>
  (subscription.since === undefined || event.seq > subscription.since) &&
  matchesFilter(subscription.request.filter, event);

/**
 * One client's WebSocket on a thread: its commands, and one reader of the thread's events in the
 * log for all its subscriptions, so that events go out once each and in the log's order, whatever
 * subscription wants them. A subscription (or a batch of them, as the SDK sends right after
 * `run.start`) restarts the reader from where the newcomers need it; what was sent is not sent
 * again. Each answer goes out, with how many events it replays, before any of them.
 */
export class ProtocolSocketSession {
  private readonly subscriptions = new Map<string, ActiveSubscription>();
  private readonly sent = new Set<number>();
  private nextSubscription = 1;
  private closed = false;
  private reader: AbortController | undefined;
  private restartScheduled = false;

  constructor(
    private readonly socket: WebSocket,
    private readonly deps: ProtocolSocketDeps,
  ) {}

  async receive(text: string): Promise<void> {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      this.send(protocolFailure(null, 'invalid_argument', 'Protocol commands must be valid JSON'));
      return;
    }
    const command = parseProtocolCommand(body);
    if (typeof command === 'string') {
      this.send(protocolFailure(null, 'invalid_argument', command));
      return;
    }
    try {
      switch (command.method) {
        case 'subscription.subscribe':
          this.subscribe(command.id, parseSubscription(command.params));
          return;
        case 'subscription.unsubscribe':
          this.send(protocolSuccess(command.id, this.unsubscribe(command.params)));
          return;
        case 'subscription.reconnect':
          this.send(protocolSuccess(command.id, this.reconnect(command.params)));
          return;
        default:
          this.send(await this.deps.command(command));
      }
    } catch (error) {
      const failure =
        error instanceof ProtocolError
          ? error
          : new ProtocolError('unknown_error', 'The command failed on the server');
      this.send(protocolFailure(command.id, failure.code, failure.message));
    }
  }

  /** The socket is gone: the reader stops. */
  close(): void {
    this.closed = true;
    this.reader?.abort();
    this.subscriptions.clear();
  }

  private subscribe(commandId: number, request: SubscriptionRequest): void {
    const id = `sub-${this.nextSubscription++}`;
    this.subscriptions.set(id, { commandId, request, since: request.since, answered: false });
    this.scheduleRestart();
  }

  private unsubscribe(params: JsonObject): JsonObject {
    const id = params.subscription_id;
    if (typeof id !== 'string' || !this.subscriptions.delete(id)) {
      throw new ProtocolError(
        'no_such_subscription',
        `No subscription ${JSON.stringify(id ?? null)} on this socket`,
      );
    }
    return {};
  }

  /** Sends the subscriptions named (all, when none are) again what came after `last_event_id`. */
  private reconnect(params: JsonObject): JsonObject {
    const last = params.last_event_id;
    const since = typeof last === 'string' && /^\d+$/.test(last) ? Number(last) : undefined;
    if (last != null && since === undefined) {
      throw new ProtocolError(
        'invalid_argument',
        'last_event_id must be an event_id this server sent',
      );
    }
    const named = Array.isArray(params.subscriptions) ? params.subscriptions : undefined;
    const ids = named
      ? named.filter((id): id is string => typeof id === 'string')
      : [...this.subscriptions.keys()];
    const known = ids.filter((id) => this.subscriptions.has(id));
    for (const id of known) (this.subscriptions.get(id) as ActiveSubscription).since = since;
    if (known.length > 0) {
      this.sent.clear();
      this.scheduleRestart();
    }
    return { restored: known.length === ids.length && ids.length > 0 };
  }

  /** Subscriptions that arrive together (the same turn of the event loop) share one restart. */
  private scheduleRestart(): void {
    if (this.restartScheduled) return;
    this.restartScheduled = true;
    setImmediate(() => {
      this.restartScheduled = false;
      if (!this.closed) this.restart();
    });
  }

  private restart(): void {
    this.reader?.abort();
    const reader = new AbortController();
    this.reader = reader;
    const subscriptions = [...this.subscriptions.values()];
    const sinces = subscriptions.map((subscription) => subscription.since);
    const defined = sinces.filter((since): since is number => since !== undefined);
    // From the earliest point a subscription needs; one without `since` needs the latest run.
    const since = defined.length > 0 ? Math.min(...defined) : undefined;
    const replay: ProtocolEvent[] = [];
    const phase = { live: false };
    const goLive = (counted: boolean): void => {
      if (phase.live) return;
      phase.live = true;
      for (const subscription of this.subscriptions.values()) {
        if (subscription.answered) continue;
        subscription.answered = true;
        const result: JsonObject = { subscription_id: this.idOf(subscription) };
        if (counted)
          result.replayed_events = replay.filter((event) => wants(subscription, event)).length;
        this.send(protocolSuccess(subscription.commandId, result));
      }
      for (const event of replay.splice(0)) this.sendOnce(event);
    };
    void (async () => {
      try {
        const events = await this.deps.open(since, reader.signal, () => {
          goLive(true);
        });
        for await (const event of events) {
          if (reader.signal.aborted || this.closed) return;
          if (this.sent.has(event.seq)) continue;
          const wanted = [...this.subscriptions.values()].some((subscription) =>
            wants(subscription, event),
          );
          if (!wanted) continue;
          if (!phase.live) {
            replay.push(event);
            if (replay.length >= MAX_COUNTED_REPLAY) goLive(false);
            continue;
          }
          this.sendOnce(event);
          await this.drained();
        }
      } catch (error) {
        if (reader.signal.aborted || this.closed) return;
        goLive(false);
        const message = error instanceof Error ? error.message : String(error);
        this.send(protocolFailure(null, 'unknown_error', `The event stream stopped: ${message}`));
      }
    })();
  }

  private idOf(subscription: ActiveSubscription): string {
    for (const [id, candidate] of this.subscriptions) if (candidate === subscription) return id;
    return '';
  }

  private sendOnce(event: ProtocolEvent): void {
    if (this.sent.has(event.seq)) return;
    this.sent.add(event.seq);
    this.send(event);
  }

  private send(message: ProtocolResponse | ProtocolEvent): void {
    if (!this.closed && this.socket.readyState === this.socket.OPEN) {
      this.socket.send(JSON.stringify(message));
    }
  }

  private async drained(): Promise<void> {
    while (!this.closed && this.socket.bufferedAmount > HIGH_WATER_BYTES) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}
