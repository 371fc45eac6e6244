import { createHash } from 'node:crypto';

/** The hash the first event's link is chained to. */
export const GENESIS_HASH = '0'.repeat(64);

/** An event as the log stores it: data and metadata in PostgreSQL's own text of them. */
export interface StoredEvent {
  readonly eventId: string;
  readonly streamId: string;
  readonly type: string;
  /** The stored JSON's text exactly as the database gives it back, never re-serialized. */
  readonly dataText: string;
  readonly metadataText: string;
}

/** One sealed link of the chain: enough to continue the chain when its event is gone. */
export interface ChainLink {
  /** 1 for the log's first event, then one more per event, in log order. */
  readonly position: number;
  readonly eventId: string;
  readonly streamId: string;
  /** sha256 of the event's type, data and metadata. */
  readonly contentHash: string;
  /** sha256 of the previous link's hash and this link's position, event id, stream and content hash. */
  readonly hash: string;
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** A JSON array of strings: each field's bounds are unambiguous, whatever it holds. */
export function contentHashOf(
  event: Pick<StoredEvent, 'type' | 'dataText' | 'metadataText'>,
): string {
  return sha256(JSON.stringify([event.type, event.dataText, event.metadataText]));
}

export function linkHash(
  previousHash: string,
  position: number,
  eventId: string,
  streamId: string,
  contentHash: string,
): string {
  return sha256(JSON.stringify([previousHash, String(position), eventId, streamId, contentHash]));
}

/** The link an event makes at `position`, after the link whose hash is `previousHash`. */
export function linkOf(previousHash: string, position: number, event: StoredEvent): ChainLink {
  const contentHash = contentHashOf(event);
  return {
    position,
    eventId: event.eventId,
    streamId: event.streamId,
    contentHash,
    hash: linkHash(previousHash, position, event.eventId, event.streamId, contentHash),
  };
}
