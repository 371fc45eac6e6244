import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { contentHashOf, GENESIS_HASH, linkHash, linkOf, type StoredEvent } from './chain-hash.js';

const event: StoredEvent = {
  eventId: '0190f0a0-0000-7000-8000-000000000001',
  streamId: 'deployment-1',
  type: 'DeploymentCreated',
  dataText: '{"name": "a"}',
  metadataText: '{}',
};

describe('the chain hash', () => {
  it('is sha256 over the previous hash, position, id, stream and content, as a JSON array', () => {
    const content = createHash('sha256')
      .update(JSON.stringify(['DeploymentCreated', '{"name": "a"}', '{}']))
      .digest('hex');
    const expected = createHash('sha256')
      .update(JSON.stringify([GENESIS_HASH, '1', event.eventId, 'deployment-1', content]))
      .digest('hex');
    expect(linkOf(GENESIS_HASH, 1, event)).toEqual({
      position: 1,
      eventId: event.eventId,
      streamId: 'deployment-1',
      contentHash: content,
      hash: expected,
    });
  });

  it('changes with every field it covers', () => {
    const base = linkOf(GENESIS_HASH, 1, event).hash;
    const variants = [
      linkOf('1'.repeat(64), 1, event),
      linkOf(GENESIS_HASH, 2, event),
      linkOf(GENESIS_HASH, 1, { ...event, eventId: '0190f0a0-0000-7000-8000-000000000002' }),
      linkOf(GENESIS_HASH, 1, { ...event, streamId: 'deployment-2' }),
      linkOf(GENESIS_HASH, 1, { ...event, type: 'DeploymentDeleted' }),
      linkOf(GENESIS_HASH, 1, { ...event, dataText: '{"name": "b"}' }),
      linkOf(GENESIS_HASH, 1, { ...event, metadataText: '{"by": "x"}' }),
    ].map((link) => link.hash);
    expect(new Set([base, ...variants]).size).toBe(variants.length + 1);
  });

  it('keeps field bounds: text moved from one field to the next hashes differently', () => {
    const a = contentHashOf({ type: 'Ab', dataText: 'c', metadataText: '{}' });
    const b = contentHashOf({ type: 'A', dataText: 'bc', metadataText: '{}' });
    expect(a).not.toBe(b);
  });

  it('chains: a link is computed from the content hash alone, as for a deleted event', () => {
    const first = linkOf(GENESIS_HASH, 1, event);
    const second = linkOf(first.hash, 2, { ...event, eventId: 'e2' });
    expect(linkHash(first.hash, 2, 'e2', 'deployment-1', second.contentHash)).toBe(second.hash);
  });
});
