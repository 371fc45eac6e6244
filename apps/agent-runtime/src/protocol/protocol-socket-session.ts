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
  readonly request: SubscriptionRequest;
  stop: AbortController;
}

/**
 * One client's WebSocket on a thread: its commands, and its subscriptions, each a reader of the
 * thread's events in the log sending what matches. Answers go out before the events they open.
 */
export class ProtocolSocketSession {
  private readonly subscriptions = new Map<string, ActiveSubscription>();
  private nextSubscription = 1;
  private closed = false;

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

  /** The socket is gone: every subscription stops reading. */
  close(): void {
    this.closed = true;
    for (const subscription of this.subscriptions.values()) subscription.stop.abort();
    this.subscriptions.clear();
  }

  /**
   * Answers once the replay is read (`replayed_events`: how many events it holds, as the JS server
   * says), then sends the replay and follows live: the answer always comes before its events.
   */
  private subscribe(commandId: number, request: SubscriptionRequest): void {
    const id = `sub-${this.nextSubscription++}`;
    const subscription: ActiveSubscription = { request, stop: new AbortController() };
    this.subscriptions.set(id, subscription);
    const replay: ProtocolEvent[] = [];
    let answered = false;
    const answer = (count: number | undefined): void => {
      if (answered) return;
      answered = true;
      const result: JsonObject = { subscription_id: id };
      if (count !== undefined) result.replayed_events = count;
      this.send(protocolSuccess(commandId, result));
      for (const event of replay.splice(0)) this.send(event);
    };
    this.follow(id, subscription, request.since, {
      onCaughtUp: () => {
        answer(replay.length);
      },
      deliver: async (event) => {
        if (answered) return this.sendEvent(event);
        replay.push(event);
        if (replay.length >= MAX_COUNTED_REPLAY) answer(undefined);
        return undefined;
      },
      onEnd: () => {
        answer(replay.length);
      },
    });
  }

  private unsubscribe(params: JsonObject): JsonObject {
    const id = params.subscription_id;
    const subscription = typeof id === 'string' ? this.subscriptions.get(id) : undefined;
    if (!subscription || typeof id !== 'string') {
      throw new ProtocolError(
        'no_such_subscription',
        `No subscription ${JSON.stringify(id ?? null)} on this socket`,
      );
    }
    subscription.stop.abort();
    this.subscriptions.delete(id);
    return {};
  }

  /** Restarts the subscriptions named (all, when none are) from after `last_event_id`. */
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
    for (const id of known) {
      const subscription = this.subscriptions.get(id) as ActiveSubscription;
      subscription.stop.abort();
      subscription.stop = new AbortController();
      this.follow(id, subscription, since);
    }
    return { restored: known.length === ids.length && ids.length > 0 };
  }

  private follow(
    id: string,
    subscription: ActiveSubscription,
    since: number | undefined,
    hooks: {
      onCaughtUp?: () => void;
      deliver?: (event: ProtocolEvent) => Promise<void>;
      onEnd?: () => void;
    } = {},
  ): void {
    const { signal } = subscription.stop;
    const deliver = hooks.deliver ?? ((event: ProtocolEvent) => this.sendEvent(event));
    void (async () => {
      try {
        const events = await this.deps.open(since, signal, hooks.onCaughtUp ?? (() => undefined));
        for await (const event of events) {
          if (signal.aborted || this.closed) return;
          if (matchesFilter(subscription.request.filter, event)) await deliver(event);
        }
      } catch (error) {
        if (signal.aborted || this.closed) return;
        hooks.onEnd?.();
        const message = error instanceof Error ? error.message : String(error);
        this.send(protocolFailure(null, 'unknown_error', `Subscription ${id} stopped: ${message}`));
      }
    })();
  }

  private send(message: ProtocolResponse | ProtocolEvent): void {
    if (!this.closed && this.socket.readyState === this.socket.OPEN) {
      this.socket.send(JSON.stringify(message));
    }
  }

  private async sendEvent(event: ProtocolEvent): Promise<void> {
    this.send(event);
    while (!this.closed && this.socket.bufferedAmount > HIGH_WATER_BYTES) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}
