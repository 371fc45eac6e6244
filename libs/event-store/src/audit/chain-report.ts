import type { ChainBreak } from './chain-judge.js';

/** A chain head: the position of a link and its hash, written `position:hash`. */
export interface ChainHead {
  readonly position: number;
  readonly hash: string;
}

export type ChainVerification =
  | {
      readonly verified: true;
      /** Sealed events checked, those that went with a deleted stream included. */
      readonly events: number;
      /** Of those, events whose stream the store deleted: checked by their seals alone. */
      readonly deleted: number;
      /** The chain's head: its last position and hash, `0:<genesis>` for an empty log. */
      readonly head: ChainHead;
      /** Events committed after the head, not sealed yet. */
      readonly pending: number;
      /** The published head the log was also checked against, when one was given. */
      readonly publishedHead?: ChainHead;
    }
  | {
      readonly verified: false;
      /** Positions before the break that matched their seals. */
      readonly events: number;
      readonly break: ChainBreak;
      readonly publishedHead?: ChainHead;
    };

const HEAD_PATTERN = /^(\d{1,15}):([0-9a-f]{64})$/;

export function formatHead(head: ChainHead): string {
  return `${head.position}:${head.hash}`;
}

/** `position:hash` as `formatHead` writes it; undefined when the text is not one. */
export function parseHead(text: string): ChainHead | undefined {
  const match = HEAD_PATTERN.exec(text.trim().toLowerCase());
  if (!match?.[1] || !match[2]) return undefined;
  return { position: Number(match[1]), hash: match[2] };
}

/** The verification in one line, as `berth audit verify` prints it. */
export function describeVerification(result: ChainVerification): string {
  const against = result.publishedHead
    ? `, against the published head at position ${result.publishedHead.position}`
    : '';
  if (result.verified) {
    const deleted =
      result.deleted > 0 ? ` (${result.deleted} of them deleted with their streams)` : '';
    const pending = result.pending > 0 ? `; ${result.pending} newer events not sealed yet` : '';
    return (
      `verified ${result.events} events up to position ${result.head.position}${deleted}${against}; ` +
      `head ${formatHead(result.head)}${pending}`
    );
  }
  const { kind, position, detail, eventId } = result.break;
  const event = eventId ? ` (event ${eventId})` : '';
  return `broken at position ${position}: ${kind}${event}: ${detail}${against}`;
}

/** The verification as the HTTP routes answer it: heads as `position:hash`, and the one line. */
export interface VerificationAnswer {
  readonly verified: boolean;
  readonly events: number;
  readonly deleted?: number;
  readonly head?: string;
  readonly pending?: number;
  readonly break?: {
    readonly kind: string;
    readonly position: number;
    readonly detail: string;
    readonly event_id?: string;
  };
  readonly published_head?: string;
  readonly summary: string;
}

export function verificationAnswer(result: ChainVerification): VerificationAnswer {
  const published = result.publishedHead && { published_head: formatHead(result.publishedHead) };
  const summary = describeVerification(result);
  if (result.verified) {
    return {
      verified: true,
      events: result.events,
      deleted: result.deleted,
      head: formatHead(result.head),
      pending: result.pending,
      ...published,
      summary,
    };
  }
  const { kind, position, detail, eventId } = result.break;
  return {
    verified: false,
    events: result.events,
    break: { kind, position, detail, ...(eventId ? { event_id: eventId } : {}) },
    ...published,
    summary,
  };
}
