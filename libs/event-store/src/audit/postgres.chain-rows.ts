import type pg from 'pg';
import type { ChainLink, StoredEvent } from './chain-hash.js';

/** Where an event stands in the log: `(transaction_id, global_position)`, compared in that order. */
export interface LogSpot {
  readonly transactionId: string;
  readonly globalPosition: string;
}

export interface SpottedEvent extends StoredEvent, LogSpot {}

export interface SealedLink extends ChainLink, LogSpot {}

const LOG_START_SPOT: LogSpot = { transactionId: '0', globalPosition: '-1' };

interface StoredRow {
  transaction_id: string;
  global_position: string;
  event_id: string;
  stream_id: string;
  event_type: string;
  data_text: string;
  metadata_text: string;
}

interface LinkRow {
  position: string;
  transaction_id: string;
  global_position: string;
  event_id: string;
  stream_id: string;
  content_hash: string;
  hash: string;
}

/**
 * Events after `after`, in log order, with their data and metadata as PostgreSQL's text of them
 * (not parsed and serialized again, which would reorder keys). Only transactions older than every
 * one still running, as the log's readers see it: nothing can later commit before these.
 */
export async function readStoredEvents(
  pool: pg.Pool,
  after: LogSpot | undefined,
  limit: number,
): Promise<SpottedEvent[]> {
  const from = after ?? LOG_START_SPOT;
  const { rows } = await pool.query<StoredRow>({
    name: 'es_chain_read_events',
    text: `select transaction_id, global_position, event_id, stream_id, event_type,
                  data::text as data_text, metadata::text as metadata_text
             from es_events
            where (transaction_id, global_position) > ($1::xid8, $2::bigint)
              and transaction_id < pg_snapshot_xmin(pg_current_snapshot())
            order by transaction_id, global_position
            limit $3`,
    values: [from.transactionId, from.globalPosition, limit],
  });
  return rows.map((row) => ({
    transactionId: row.transaction_id,
    globalPosition: row.global_position,
    eventId: row.event_id,
    streamId: row.stream_id,
    type: row.event_type,
    dataText: row.data_text,
    metadataText: row.metadata_text,
  }));
}

export async function readLinks(
  pool: pg.Pool,
  afterPosition: number,
  limit: number,
): Promise<SealedLink[]> {
  const { rows } = await pool.query<LinkRow>({
    name: 'es_chain_read_links',
    text: `select position, transaction_id, global_position, event_id, stream_id, content_hash, hash
             from es_chain where position > $1 order by position limit $2`,
    values: [afterPosition, limit],
  });
  return rows.map(toLink);
}

export async function readLastLink(pool: pg.Pool): Promise<SealedLink | undefined> {
  const { rows } = await pool.query<LinkRow>({
    name: 'es_chain_last_link',
    text: `select position, transaction_id, global_position, event_id, stream_id, content_hash, hash
             from es_chain order by position desc limit 1`,
  });
  return rows[0] && toLink(rows[0]);
}

/**
 * Adds links after the chain's end. Two sealers that read the same end write the same positions:
 * the key refuses the second, which reads the new end next time.
 */
export async function insertLinks(
  pool: pg.Pool,
  links: readonly SealedLink[],
  durable: boolean,
): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    // A seal lost in a crash is written again from the log: the sealer's commits need not wait
    // for the disk, nor the appends' commits queue behind them. A head about to be shown does.
    if (!durable) await client.query('set local synchronous_commit = off');
    await client.query({
      name: 'es_chain_insert',
      text: `insert into es_chain
               (position, transaction_id, global_position, event_id, stream_id, content_hash, hash)
             select * from unnest($1::bigint[], $2::xid8[], $3::bigint[], $4::uuid[], $5::text[],
                                  $6::text[], $7::text[])`,
      values: [
        links.map((link) => link.position),
        links.map((link) => link.transactionId),
        links.map((link) => link.globalPosition),
        links.map((link) => link.eventId),
        links.map((link) => link.streamId),
        links.map((link) => link.contentHash),
        links.map((link) => link.hash),
      ],
    });
    await client.query('commit');
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

function toLink(row: LinkRow): SealedLink {
  return {
    position: Number(row.position),
    transactionId: row.transaction_id,
    globalPosition: row.global_position,
    eventId: row.event_id,
    streamId: row.stream_id,
    contentHash: row.content_hash,
    hash: row.hash,
  };
}
