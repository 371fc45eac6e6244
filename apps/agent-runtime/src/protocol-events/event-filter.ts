import type { ProtocolEvent } from './protocol-event.js';

/** Which events a stream or subscription wants (`EventStreamRequest`, `SubscribeParams`). */
export interface EventFilter {
  readonly channels: ReadonlySet<string>;
  readonly namespaces?: readonly (readonly string[])[];
  readonly depth?: number;
}

/** `input.requested` and `input.answered` travel on the `input` channel. */
function channelOf(event: ProtocolEvent): string {
  if (event.method.startsWith('input.')) return 'input';
  if (event.method === 'custom') {
    const data = event.params.data;
    const name =
      typeof data === 'object' && data !== null && !Array.isArray(data) ? data.name : undefined;
    return typeof name === 'string' ? `custom:${name}` : 'custom';
  }
  return event.method;
}

/** Whether a namespace segment matches a filter's (`tools` matches `tools:6b1c…`). */
function segmentMatches(segment: string, wanted: string): boolean {
  return segment === wanted || (!wanted.includes(':') && segment.split(':')[0] === wanted);
}

function startsWith(namespace: readonly string[], prefix: readonly string[]): boolean {
  return (
    prefix.length <= namespace.length &&
    prefix.every((wanted, index) => segmentMatches(namespace[index] ?? '', wanted))
  );
}

export function matchesFilter(filter: EventFilter, event: ProtocolEvent): boolean {
  const channel = channelOf(event);
  const wanted =
    filter.channels.has(channel) ||
    (channel.startsWith('custom:') && filter.channels.has('custom'));
  if (!wanted) return false;
  if (!filter.namespaces || filter.namespaces.length === 0) return true;
  const namespace = event.params.namespace;
  return filter.namespaces.some(
    (prefix) =>
      startsWith(namespace, prefix) &&
      (filter.depth === undefined || namespace.length - prefix.length <= filter.depth),
  );
}
