import type { JsonObject } from '#libs/event-store';
import type { EventFilter } from '../protocol-events/event-filter.js';
import { PROTOCOL_CHANNEL, ProtocolError } from '../protocol-events/protocol-event.js';

export interface SubscriptionRequest {
  readonly filter: EventFilter;
  /** Berth's addition: replay from after this `seq`, as an SSE stream's `since` does. */
  readonly since?: number;
}

const isStrings = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string');

const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/** `subscription.subscribe`'s params (the protocol's `SubscribeParams`), checked. */
export function parseSubscription(params: JsonObject): SubscriptionRequest {
  const { channels, namespaces, depth, since } = params;
  if (!isStrings(channels) || channels.length === 0) {
    throw new ProtocolError('invalid_argument', 'channels must be a non-empty array of channels');
  }
  const unknown = channels.find((channel) => !PROTOCOL_CHANNEL.test(channel));
  if (unknown !== undefined)
    throw new ProtocolError('invalid_argument', `Unknown channel ${unknown}`);
  if (namespaces != null && !(Array.isArray(namespaces) && namespaces.every(isStrings))) {
    throw new ProtocolError('invalid_argument', 'namespaces must be an array of string arrays');
  }
  if (depth != null && !isCount(depth)) {
    throw new ProtocolError('invalid_argument', 'depth must be a whole number, 0 or more');
  }
  if (since != null && !isCount(since)) {
    throw new ProtocolError('invalid_argument', 'since must be a whole number, 0 or more');
  }
  return {
    filter: {
      channels: new Set(channels),
      ...(namespaces != null ? { namespaces: namespaces } : {}),
      ...(depth != null ? { depth } : {}),
    },
    ...(since != null ? { since } : {}),
  };
}
