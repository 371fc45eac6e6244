import type pg from 'pg';
import { BatchCursor } from './batch-cursor.js';
import { GENESIS_HASH } from './chain-hash.js';
import { judgeLink, type ChainBreak, type LinkFacts } from './chain-judge.js';
import type { ChainHead, ChainVerification } from './chain-report.js';
import {
  readLinks,
  readStoredEvents,
  type LogSpot,
  type SealedLink,
  type SpottedEvent,
} from './postgres.chain-rows.js';

const BATCH = 1_000;

/**
 * Walks the chain and the stored log side by side, recomputing every link from the stored
 * events, and stops at the first position where they part.
 */
export async function verifyChain(
  pool: pg.Pool,
  published: ChainHead | undefined,
): Promise<ChainVerification> {
  const deletions = await readDeletions(pool);
  const links = new BatchCursor<SealedLink>((last) => readLinks(pool, last?.position ?? 0, BATCH));
  const stored = new BatchCursor<SpottedEvent>((last) => readStoredEvents(pool, last, BATCH));
  const withPublished = published ? { publishedHead: published } : {};
  let hash = GENESIS_HASH;
  let events = 0;
  let deleted = 0;
  let last: SealedLink | undefined;
  const brokenAt = (found: ChainBreak): ChainVerification => ({
    verified: false,
    events,
    break: found,
    ...withPublished,
  });
  if (published?.position === 0 && published.hash !== GENESIS_HASH) {
    return brokenAt(headMismatch(0, 'an empty chain has the genesis hash'));
  }
  for (let link = await links.take(); link; link = await links.take()) {
    const event = await stored.peek();
    const judgement = await judgeLink(hash, link, event, factsOf(pool, link, event, deletions));
    if (judgement.outcome === 'broken') return brokenAt(judgement.break);
    if (judgement.outcome === 'linked') await stored.take();
    else deleted += 1;
    hash = judgement.hash;
    events += 1;
    last = link;
    if (published?.position === link.position && published.hash !== hash) {
      return brokenAt(
        headMismatch(link.position, 'the log up to here no longer hashes to the published head'),
      );
    }
  }
  const end = last?.position ?? 0;
  if (published && published.position > end) {
    return brokenAt(
      headMismatch(end + 1, `the chain ends at position ${end}, before the published head`),
    );
  }
  return {
    verified: true,
    events,
    deleted,
    head: { position: end, hash },
    pending: await countAfter(pool, last),
    ...withPublished,
  };
}

function headMismatch(position: number, detail: string): ChainBreak {
  return { kind: 'head_mismatch', position, detail };
}

function factsOf(
  pool: pg.Pool,
  link: SealedLink,
  event: SpottedEvent | undefined,
  deletions: ReadonlyMap<string, bigint>,
): LinkFacts {
  const deletedBy = deletions.get(link.streamId);
  return {
    sealedStreamDeleted: deletedBy !== undefined && deletedBy > BigInt(link.transactionId),
    sealedEventStored: async () => {
      const { rows } = await pool.query('select 1 from es_events where event_id = $1', [
        link.eventId,
      ]);
      return rows.length > 0;
    },
    storedEventSealedAt: async () =>
      event && firstPosition(pool, 'event_id = $1::uuid', event.eventId, link.position),
    contentSealedAt: (contentHash) =>
      firstPosition(pool, 'content_hash = $1', contentHash, link.position),
  };
}

async function firstPosition(
  pool: pg.Pool,
  condition: string,
  value: string,
  other: number,
): Promise<number | undefined> {
  const { rows } = await pool.query<{ position: string }>(
    `select position from es_chain where ${condition} and position <> $2 order by position limit 1`,
    [value, other],
  );
  return rows[0] ? Number(rows[0].position) : undefined;
}

/** The last deletion of each deleted stream, by its transaction. */
async function readDeletions(pool: pg.Pool): Promise<Map<string, bigint>> {
  const { rows } = await pool.query<{ stream_id: string; transaction_id: string }>(
    'select stream_id, max(transaction_id::text::numeric)::text as transaction_id ' +
      'from es_stream_deletions group by stream_id',
  );
  return new Map(rows.map((row) => [row.stream_id, BigInt(row.transaction_id)]));
}

async function countAfter(pool: pg.Pool, last: LogSpot | undefined): Promise<number> {
  const { rows } = await pool.query<{ count: string }>(
    `select count(*) from es_events
      where (transaction_id, global_position) > ($1::xid8, $2::bigint)`,
    [last?.transactionId ?? '0', last?.globalPosition ?? '-1'],
  );
  return Number(rows[0]?.count ?? 0);
}
