import { contentHashOf, linkHash, type ChainLink, type StoredEvent } from './chain-hash.js';

/**
 * How the stored log departs from its chain at the first position where it does:
 * - edited: the event sealed here is still here, with other type, data, metadata or stream;
 * - missing: the event sealed here is no longer in the log;
 * - reordered: the event (or the content) found here was sealed at another position;
 * - inserted: the event found here was never sealed, yet stands before the chain's end;
 * - chain_altered: the stored event matches its seal, but the seal's hash does not follow
 *   from the links before it (the chain table itself was written to);
 * - head_mismatch: the log no longer hashes to a head published earlier.
 */
export type BreakKind =
  'edited' | 'missing' | 'reordered' | 'inserted' | 'chain_altered' | 'head_mismatch';

export interface ChainBreak {
  readonly kind: BreakKind;
  /** The chain position where the log stops matching. */
  readonly position: number;
  readonly detail: string;
  /** The event found at that position, when one is. */
  readonly eventId?: string;
}

/** What a judgement may need beyond the pair it compares; looked up only when it does. */
export interface LinkFacts {
  /** Whether the sealed event's stream was deleted (by the store) after the event was sealed. */
  readonly sealedStreamDeleted: boolean;
  /** Whether the event sealed here is still somewhere in the log. */
  readonly sealedEventStored: () => Promise<boolean>;
  /** The chain position where the stored event was sealed, if anywhere. */
  readonly storedEventSealedAt: () => Promise<number | undefined>;
  /** The chain position where the stored content was sealed, if anywhere. */
  readonly contentSealedAt: (contentHash: string) => Promise<number | undefined>;
}

export type Judgement =
  /** The pair matches: both move on, the chain now at `hash`. */
  | { readonly outcome: 'linked'; readonly hash: string }
  /** The sealed event went with its stream's deletion: the chain moves on, the log stays. */
  | { readonly outcome: 'deleted'; readonly hash: string }
  | { readonly outcome: 'broken'; readonly break: ChainBreak };

/**
 * Compares one sealed link with the event the log holds at its position. The chain is
 * recomputed from the stored events (`previousHash` is the recomputed hash so far), so a chain
 * table rewritten to match an edit still passes here: only a published head catches that.
 */
export async function judgeLink(
  previousHash: string,
  sealed: ChainLink,
  stored: StoredEvent | undefined,
  facts: LinkFacts,
): Promise<Judgement> {
  const at = sealed.position;
  if (stored?.eventId === sealed.eventId) {
    const contentHash = contentHashOf(stored);
    if (contentHash !== sealed.contentHash) {
      const elsewhere = await facts.contentSealedAt(contentHash);
      return elsewhere !== undefined && elsewhere !== at
        ? broken('reordered', at, `its content was sealed at position ${elsewhere}`, stored)
        : broken('edited', at, 'its type, data or metadata differ from what was sealed', stored);
    }
    if (stored.streamId !== sealed.streamId) {
      return broken('edited', at, 'it was sealed in another stream', stored);
    }
    const hash = linkHash(previousHash, at, stored.eventId, stored.streamId, contentHash);
    if (hash !== sealed.hash) {
      return broken(
        'chain_altered',
        at,
        'the sealed hash does not follow from the links before it',
        stored,
      );
    }
    return { outcome: 'linked', hash };
  }
  if (facts.sealedStreamDeleted) {
    const hash = linkHash(previousHash, at, sealed.eventId, sealed.streamId, sealed.contentHash);
    if (hash !== sealed.hash) {
      return broken(
        'chain_altered',
        at,
        'the sealed hash does not follow from the links before it',
      );
    }
    return { outcome: 'deleted', hash };
  }
  if (!stored || !(await facts.sealedEventStored())) {
    return broken('missing', at, `event ${sealed.eventId}, sealed here, is gone`);
  }
  const sealedAt = await facts.storedEventSealedAt();
  return sealedAt !== undefined
    ? broken('reordered', at, `the event found here was sealed at position ${sealedAt}`, stored)
    : broken('inserted', at, 'the event found here was never sealed', stored);
}

function broken(
  kind: BreakKind,
  position: number,
  detail: string,
  stored?: StoredEvent,
): Judgement {
  return {
    outcome: 'broken',
    break: { kind, position, detail, ...(stored ? { eventId: stored.eventId } : {}) },
  };
}
