import { describe, expect, it } from '@jest/globals';
import { GENESIS_HASH, linkOf, type StoredEvent } from './chain-hash.js';
import { judgeLink, type LinkFacts } from './chain-judge.js';

function anEvent(n: number, overrides: Partial<StoredEvent> = {}): StoredEvent {
  return {
    eventId: `event-${n}`,
    streamId: 'stream-a',
    type: 'Happened',
    dataText: `{"n": ${n}}`,
    metadataText: '{}',
    ...overrides,
  };
}

const noFacts: LinkFacts = {
  sealedStreamDeleted: false,
  sealedEventStored: () => Promise.resolve(true),
  storedEventSealedAt: () => Promise.resolve(undefined),
  contentSealedAt: () => Promise.resolve(undefined),
};

const sealed = linkOf(GENESIS_HASH, 1, anEvent(1));

describe('judging a sealed link against the stored event', () => {
  it('links an unchanged event, moving the chain to its hash', async () => {
    expect(await judgeLink(GENESIS_HASH, sealed, anEvent(1), noFacts)).toEqual({
      outcome: 'linked',
      hash: sealed.hash,
    });
  });

  it('calls changed data an edit', async () => {
    const judgement = await judgeLink(
      GENESIS_HASH,
      sealed,
      anEvent(1, { dataText: '{"n": 9}' }),
      noFacts,
    );
    expect(judgement).toMatchObject({
      outcome: 'broken',
      break: { kind: 'edited', position: 1, eventId: 'event-1' },
    });
  });

  it('calls an event moved to another stream an edit', async () => {
    const judgement = await judgeLink(
      GENESIS_HASH,
      sealed,
      anEvent(1, { streamId: 'stream-b' }),
      noFacts,
    );
    expect(judgement).toMatchObject({ break: { kind: 'edited' } });
  });

  it('calls content sealed at another position a reordering', async () => {
    const judgement = await judgeLink(GENESIS_HASH, sealed, anEvent(1, { dataText: '{"n": 2}' }), {
      ...noFacts,
      contentSealedAt: () => Promise.resolve(2),
    });
    expect(judgement).toMatchObject({
      break: { kind: 'reordered', position: 1, detail: 'its content was sealed at position 2' },
    });
  });

  it('calls a sealed event no longer stored missing', async () => {
    const judgement = await judgeLink(GENESIS_HASH, sealed, anEvent(2), {
      ...noFacts,
      sealedEventStored: () => Promise.resolve(false),
    });
    expect(judgement).toMatchObject({ break: { kind: 'missing', position: 1 } });
    expect(await judgeLink(GENESIS_HASH, sealed, undefined, noFacts)).toMatchObject({
      break: { kind: 'missing' },
    });
  });

  it('calls an event sealed elsewhere reordered, and one never sealed inserted', async () => {
    const reordered = await judgeLink(GENESIS_HASH, sealed, anEvent(2), {
      ...noFacts,
      storedEventSealedAt: () => Promise.resolve(2),
    });
    expect(reordered).toMatchObject({ break: { kind: 'reordered', eventId: 'event-2' } });
    const inserted = await judgeLink(GENESIS_HASH, sealed, anEvent(7), noFacts);
    expect(inserted).toMatchObject({ break: { kind: 'inserted', eventId: 'event-7' } });
  });

  it('continues past an event deleted with its stream, from its seal', async () => {
    const judgement = await judgeLink(GENESIS_HASH, sealed, anEvent(2), {
      ...noFacts,
      sealedStreamDeleted: true,
    });
    expect(judgement).toEqual({ outcome: 'deleted', hash: sealed.hash });
  });

  it('calls a seal whose hash does not follow from the chain before it altered', async () => {
    const judgement = await judgeLink('1'.repeat(64), sealed, anEvent(1), noFacts);
    expect(judgement).toMatchObject({ break: { kind: 'chain_altered', position: 1 } });
  });
});
