import { randomUUID } from 'node:crypto';
import { KEY_ROTATIONS_TABLE, KEY_STORE_TABLE, type Queryable } from './data-key-store.js';
import type { WrappedKey } from './key-wrap.js';

/** The same data key, wrapped again (by a wrapper whose id does not change: a KMS's new version). */
export type Rewrap = (wrapped: WrappedKey) => Promise<string>;

export interface RotationStart {
  readonly rotationId: string;
  readonly startedAt: Date;
  /** Whether an earlier command started it and stopped before the end. */
  readonly resumed: boolean;
  /** Keys it wrapped again before this command. */
  readonly rewrappedBefore: number;
  /** Keys of the wrapper still wrapped before the rotation started. */
  readonly toRewrap: number;
}

export interface RotationBatch {
  readonly rewrapped: number;
  /** Keys destroyed (or wrapped again by another process) between their read and their update. */
  readonly skipped: number;
}

export class RotationStoppedError extends Error {}

interface RotationRow {
  readonly rotation_id: string;
  readonly started_at: Date;
  readonly rewrapped: number;
}

interface KeyRow {
  readonly key_id: string;
  readonly scope: string;
  readonly master_key_id: string;
  readonly wrapped_key: string;
}

/** Keys the handlers work on at once: a KMS's rate limit, not the batch, bounds them. */
const HANDLER_CALLS_AT_ONCE = 8;

async function settleEach<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<PromiseSettledResult<R>[]> {
  const settled: PromiseSettledResult<R>[] = new Array<PromiseSettledResult<R>>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next;
      next += 1;
      settled[index] = await work(items[index] as T).then(
        (value): PromiseSettledResult<R> => ({ status: 'fulfilled', value }),
        (reason: unknown): PromiseSettledResult<R> => ({ status: 'rejected', reason }),
      );
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return settled;
}

const rowsOf = async <T>(db: Queryable, text: string, values: unknown[]): Promise<T[]> =>
  (await db.query(text, values)).rows as T[];

/** Refuses a key store that a runtime of this version has not migrated yet. */
export async function requireRotationSchema(db: Queryable): Promise<void> {
  const [row] = await rowsOf<{ ready: boolean }>(
    db,
    `select to_regclass($1) is not null as ready`,
    [KEY_ROTATIONS_TABLE],
  );
  if (!row?.ready) {
    throw new RotationStoppedError(
      `the key store has no ${KEY_ROTATIONS_TABLE} table: start the runtime of this Berth ` +
        'version once (it migrates its database), then rotate',
    );
  }
}

/**
 * The unfinished rotation of the wrapper, else a new one: it covers the keys wrapped before it
 * started (a key made after was wrapped by the handlers as they are now).
 */
export async function startRotation(db: Queryable, wrapperId: string): Promise<RotationStart> {
  const select = `select rotation_id, started_at, rewrapped from ${KEY_ROTATIONS_TABLE}
                   where wrapper_id = $1 and finished_at is null`;
  let [row] = await rowsOf<RotationRow>(db, select, [wrapperId]);
  const resumed = row !== undefined;
  row ??=
    (
      await rowsOf<RotationRow>(
        db,
        `insert into ${KEY_ROTATIONS_TABLE} (rotation_id, wrapper_id) values ($2, $1)
         on conflict (wrapper_id) where finished_at is null do nothing
       returning rotation_id, started_at, rewrapped`,
        [wrapperId, randomUUID()],
      )
    )[0] ?? (await rowsOf<RotationRow>(db, select, [wrapperId]))[0];
  if (!row) throw new Error(`no rotation could be started for ${wrapperId}`);
  const [left] = await rowsOf<{ keys: number }>(
    db,
    `select count(*)::int as keys from ${KEY_STORE_TABLE}
      where master_key_id = $1 and wrapped_at < $2`,
    [wrapperId, row.started_at],
  );
  return {
    rotationId: row.rotation_id,
    startedAt: row.started_at,
    resumed,
    rewrappedBefore: row.rewrapped,
    toRewrap: left?.keys ?? 0,
  };
}

/**
 * Wraps the rotation's keys again, `batchSize` at a time, each batch written in one statement
 * with the rotation's progress: the log is not rewritten, and a stopped rotation resumes where it
 * stopped. A key the handlers fail on stops the rotation after its batch's other keys are saved.
 */
export async function rewrapRotation(
  db: Queryable,
  wrapperId: string,
  rotation: RotationStart,
  rewrap: Rewrap,
  options: { batchSize: number; onBatch?: (batch: RotationBatch) => void },
): Promise<RotationBatch> {
  const total = { rewrapped: 0, skipped: 0 };
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const rows = await rowsOf<KeyRow>(
      db,
      `select key_id, scope, master_key_id, wrapped_key from ${KEY_STORE_TABLE}
        where master_key_id = $1 and wrapped_at < $2 and key_id > $3
        order by key_id limit $4`,
      [wrapperId, rotation.startedAt, after, options.batchSize],
    );
    const last = rows.at(-1);
    if (!last) break;
    after = last.key_id;
    const settled = await settleEach(rows, HANDLER_CALLS_AT_ONCE, (row) =>
      rewrap({
        keyId: row.key_id,
        scope: row.scope,
        masterKeyId: row.master_key_id,
        wrapped: row.wrapped_key,
      }),
    );
    const done = rows.flatMap((row, index) => {
      const outcome = settled[index];
      return outcome?.status === 'fulfilled' ? [{ row, wrapped: outcome.value }] : [];
    });
    const batch = await saveBatch(db, rotation.rotationId, done);
    total.rewrapped += batch.rewrapped;
    total.skipped += batch.skipped;
    options.onBatch?.(batch);
    const failed = settled.findIndex((outcome) => outcome.status === 'rejected');
    if (failed >= 0) {
      const reason = (settled[failed] as PromiseRejectedResult).reason as unknown;
      const row = rows[failed];
      throw new RotationStoppedError(
        `the encryption handlers failed on data key ${row?.key_id ?? '?'} (${row?.scope ?? '?'}): ` +
          `${reason instanceof Error ? reason.message : String(reason)}; ` +
          `${rows.length - done.length} keys of this batch are not re-wrapped: run the command ` +
          'again to resume',
      );
    }
  }
  await db.query(`update ${KEY_ROTATIONS_TABLE} set finished_at = now() where rotation_id = $1`, [
    rotation.rotationId,
  ]);
  return total;
}

async function saveBatch(
  db: Queryable,
  rotationId: string,
  done: readonly { row: KeyRow; wrapped: string }[],
): Promise<RotationBatch> {
  if (done.length === 0) return { rewrapped: 0, skipped: 0 };
  // Only a key still as it was read: one destroyed meanwhile is not brought back.
  const [row] = await rowsOf<{ rewrapped: number }>(
    db,
    `with saved as (
       update ${KEY_STORE_TABLE} as k set wrapped_key = w.wrapped, wrapped_at = now()
         from unnest($2::uuid[], $3::text[], $4::text[]) as w(key_id, was, wrapped)
        where k.key_id = w.key_id and k.wrapped_key = w.was
       returning 1
     ), counted as (select count(*)::int as saved from saved)
     update ${KEY_ROTATIONS_TABLE} as r set rewrapped = r.rewrapped + counted.saved
       from counted where r.rotation_id = $1
     returning counted.saved as rewrapped`,
    [
      rotationId,
      done.map((d) => d.row.key_id),
      done.map((d) => d.row.wrapped_key),
      done.map((d) => d.wrapped),
    ],
  );
  const rewrapped = row?.rewrapped ?? 0;
  return { rewrapped, skipped: done.length - rewrapped };
}
