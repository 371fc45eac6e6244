import { describe, expect, it } from '@jest/globals';
import { matchesFilter } from './event-filter.js';
import type { ProtocolEvent } from './protocol-event.js';

const event = (
  method: string,
  namespace: string[],
  data: ProtocolEvent['params']['data'] = {},
): ProtocolEvent => ({
  type: 'event',
  event_id: '1',
  seq: 1,
  method,
  params: { namespace, timestamp: 0, data },
});

describe('matchesFilter', () => {
  it.each([
    [['values'], undefined, undefined, event('values', []), true],
    [['values'], undefined, undefined, event('updates', []), false],
    [['input'], undefined, undefined, event('input.requested', []), true],
    [['custom'], undefined, undefined, event('custom', [], { name: 'audio', payload: 1 }), true],
    [
      ['custom:audio'],
      undefined,
      undefined,
      event('custom', [], { name: 'audio', payload: 1 }),
      true,
    ],
    [['custom:audio'], undefined, undefined, event('custom', [], { payload: 1 }), false],
    [['updates'], [['research']], undefined, event('updates', ['research:1']), true],
    [['updates'], [['research']], 0, event('updates', ['research:1', 'inner:2']), false],
    [['updates'], [['research']], 1, event('updates', ['research:1', 'inner:2']), true],
    [['updates'], [['research:2']], undefined, event('updates', ['research:1']), false],
    [['updates'], [[]], 0, event('updates', ['research:1']), false],
  ])('%j %j depth %s', (channels, namespaces, depth, candidate, wanted) => {
    expect(matchesFilter({ channels: new Set(channels), namespaces, depth }, candidate)).toBe(
      wanted,
    );
  });
});
