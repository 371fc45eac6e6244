import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { conflict } from '#libs/domain';
import { admitRun } from './run-admission.js';
import type { QueuedCaller } from '../auth/run-caller.js';
import type { MultitaskStrategy, RunCreatedData } from './run.events.js';
import { openJsonKeys, sealJsonKeys } from '../common/json-keys-column.js';

export interface ClaimedRun {
  readonly runId: string;
  readonly threadId: string;
  readonly attempt: number;
  readonly payload: RunCreatedData;
  /** The user of the application's auth it runs for, kept here and not in the event log. */
  readonly caller: QueuedCaller | null;
  /** Set when the run was cancelled while it waited, or while a worker that died ran it. */
  readonly cancelAction: 'interrupt' | 'rollback' | null;
}

export interface LeaseState {
  /** False when another worker took the run over: this one must stop writing at once. */
  readonly held: boolean;
  readonly cancelAction: 'interrupt' | 'rollback' | null;
}

export type CancelOutcome =
  | { readonly kind: 'absent' }
  | { readonly kind: 'removed_pending'; readonly payload: RunCreatedData }
  | { readonly kind: 'signalled_running' };

interface QueueRow {
  run_id: string;
  thread_id: string;
  attempt: number;
  payload: RunCreatedData;
  caller: QueuedCaller | null;
  cancel_action: 'interrupt' | 'rollback' | null;
}

/** What a worker finds in the queue: the runs to start, and how long until a delayed one is due. */
export interface ClaimOutcome {
  /** When fewer than asked for, no other run could start when the claim was made. */
  readonly runs: readonly ClaimedRun[];
  readonly dueInMs: number | undefined;
}

export type QueuedRunStatus = 'pending' | 'running';

export interface QueuedRun {
  readonly runId: string;
  readonly threadId: string;
}

export const RUN_WAKE_CHANNEL = 'berth_runs';
export const RUN_CANCEL_CHANNEL = 'berth_run_cancel';

/** What a thread's admission lock is taken on. */
function threadLockKey(threadId: string): string {
  return `berth-thread:${threadId}`;
}

/** A cancellation as other processes hear it: `<run id>:<action>`. */
export function cancelNotice(runId: string, action: 'interrupt' | 'rollback'): string {
  return `${runId}:${action}`;
}

export function parseCancelNotice(payload: string): {
  runId: string;
  action: 'interrupt' | 'rollback';
} {
  const [runId = '', action] = payload.split(':');
  return { runId, action: action === 'rollback' ? 'rollback' : 'interrupt' };
}

/**
 * A select made in the same round trip as a thread's lock, once it is held: its SQL, with every
 * literal put in through `literal`, and what its rows give.
 */
export interface ReadUnderLock<R> {
  sql(literal: (value: string) => string): string;
  take(rows: readonly Record<string, unknown>[]): R;
}

/** Whether a run's outcome is recorded: its queue row may linger a moment after RunFinished. */
export type RunFinishedCheck = (runId: string) => Promise<boolean>;

/**
 * The schedule of runs in PostgreSQL. It decides admission under a per-thread lock, hands runs
 * to workers under leases (a dead worker's lease runs out and the run is claimed again with the
 * next attempt), and never lets two runs of one thread run at once (a unique partial index).
 */
export class RunQueue {
  /** Names this process in its wake notices: its own workers were already woken in-process. */
  private readonly origin = randomUUID();

  constructor(
    private readonly pool: pg.Pool,
    private readonly isFinished: RunFinishedCheck,
  ) {}

  /**
   * Admits the run under the thread's multitask strategy; returns the runs it cancels. With
   * `once`, a run of this id that was ever queued before is not queued again: undefined.
   * `caller` stays with the queued run (until it has run), for its graph to read.
   */
  async enqueue(
    run: RunCreatedData,
    strategy: MultitaskStrategy,
    options: { once?: boolean; caller?: QueuedCaller | null } = {},
  ): Promise<readonly string[] | undefined> {
    const caller = options.caller ? JSON.stringify(options.caller) : null;
    if (!options.once && (await this.enqueueIfIdle(run, caller))) return [];
    return this.underThreadLock(run.thread_id, async (client, inflight) => {
      if (options.once) {
        const claimed = await client.query(
          'insert into run_claims (run_id) values ($1) on conflict do nothing returning run_id',
          [run.run_id],
        );
        if (claimed.rowCount === 0) return undefined;
      }
      const admission = admitRun(strategy, inflight);
      if (admission.kind === 'reject') {
        throw conflict(
          `Thread ${run.thread_id} is busy with run ${admission.inflight.join(', ')}. Wait for it to ` +
            'finish or choose another multitask_strategy (enqueue, interrupt, rollback).',
        );
      }
      if (admission.cancel.length > 0 && admission.action) {
        await client.query(
          'update run_queue set cancel_action = $2 where run_id = any($1::uuid[])',
          [admission.cancel, admission.action],
        );
        for (const cancelled of admission.cancel) {
          await client.query('select pg_notify($1, $2)', [
            RUN_CANCEL_CHANNEL,
            cancelNotice(cancelled, admission.action),
          ]);
        }
      }
      await client.query(
        `with queued as (
           insert into run_queue (run_id, thread_id, status, payload, not_before, caller)
           values ($1, $2, 'pending', $3, $4, $7)
           returning run_id
         )
         select pg_notify($5, $6) from queued`,
        [
          run.run_id,
          run.thread_id,
          JSON.stringify(sealJsonKeys(run)),
          run.not_before ?? null,
          RUN_WAKE_CHANNEL,
          `${this.origin}:${run.run_id}`,
          caller,
        ],
      );
      return admission.cancel;
    });
  }

  /**
   * Queues and announces the run in one statement when its thread has no run queued, which any
   * multitask strategy admits; false, with nothing queued, when it has one.
   */
  private async enqueueIfIdle(run: RunCreatedData, caller: string | null): Promise<boolean> {
    const { rows } = await this.pool.query<{ queued_run: string }>({
      name: 'run_queue_admit_if_idle',
      text: 'select queued_run from run_queue_admit_if_idle($1, $2, $3, $4, $5, $6, $7, $8)',
      values: [
        threadLockKey(run.thread_id),
        run.thread_id,
        run.run_id,
        JSON.stringify(sealJsonKeys(run)),
        run.not_before ?? null,
        RUN_WAKE_CHANNEL,
        `${this.origin}:${run.run_id}`,
        caller,
      ],
    });
    return rows.length === 0;
  }

  /** The runs waiting or running, narrowed to a thread, to some ids, or to one status. */
  async queuedRuns(filter: {
    threadId?: string;
    runIds?: readonly string[];
    status: QueuedRunStatus | 'all';
  }): Promise<QueuedRun[]> {
    const { rows } = await this.pool.query<{ run_id: string; thread_id: string }>(
      `select run_id, thread_id from run_queue
        where ($1::uuid is null or thread_id = $1::uuid)
          and ($2::uuid[] is null or run_id = any($2::uuid[]))
          and ($3::text = 'all' or status = $3::text)
        order by created_at`,
      [filter.threadId ?? null, filter.runIds ?? null, filter.status],
    );
    return rows.map((row) => ({ runId: row.run_id, threadId: row.thread_id }));
  }

  /**
   * Does the work while the thread has no run waiting or running, and admits none until it is
   * done; a busy thread is a conflict. `alongside` is read in the lock's round trip, once the lock
   * is held, and handed to the work.
   */
  async whileIdle<T, R = undefined>(
    threadId: string,
    work: (read: R | undefined) => Promise<T>,
    alongside?: ReadUnderLock<R>,
  ): Promise<T> {
    return this.underThreadLock(
      threadId,
      async (_client, inflight, read) => {
        if (inflight.length > 0) {
          throw conflict(
            `Thread ${threadId} is busy with run ${inflight.join(', ')}: wait for it to finish`,
          );
        }
        return work(read);
      },
      // It wrote nothing that must be durable first (only the rows of finished runs go): the
      // lock is released as the commit lands, and the answer does not wait for it.
      'in the background',
      alongside,
    );
  }

  /** A transaction holding the thread's admission lock, given the runs still in flight on it. */
  private async underThreadLock<T, R = undefined>(
    threadId: string,
    work: (client: pg.PoolClient, inflight: readonly string[], read: R | undefined) => Promise<T>,
    commit: 'awaited' | 'in the background' = 'awaited',
    alongside?: ReadUnderLock<R>,
  ): Promise<T> {
    const client = await this.pool.connect();
    let released = false;
    try {
      const literal = (value: string): string => client.escapeLiteral(value);
      // One round trip: the simple protocol runs these in order, each with a fresh snapshot, so
      // the queue (and what is read alongside) is read after the lock is held.
      const [, , queued, extra] = (await client.query(
        `begin;
         select pg_advisory_xact_lock(hashtextextended(${literal(threadLockKey(threadId))}, 0));
         select run_id from run_queue where thread_id = ${literal(threadId)} order by created_at` +
          (alongside ? `;\n${alongside.sql(literal)}` : ''),
      )) as unknown as [
        unknown,
        unknown,
        pg.QueryResult<{ run_id: string }>,
        pg.QueryResult<Record<string, unknown>> | undefined,
      ];
      const inflight = await this.stillInFlight(
        client,
        queued.rows.map((row) => row.run_id),
      );
      const read = alongside && extra ? alongside.take(extra.rows) : undefined;
      const result = await work(client, inflight, read);
      if (commit === 'awaited') {
        await client.query('commit');
      } else {
        released = true;
        client.query('commit').then(
          () => {
            client.release();
          },
          (error: unknown) => {
            client.release(error instanceof Error ? error : true);
          },
        );
      }
      return result;
    } catch (error) {
      await client.query('rollback');
      throw error;
    } finally {
      if (!released) client.release();
    }
  }

  /**
   * The queued runs whose outcome is not recorded yet. A worker records RunFinished before it
   * removes the run from the queue (so that a crash in between loses nothing); a run found in
   * that moment is finished, and its row is removed here.
   */
  private async stillInFlight(client: pg.PoolClient, runIds: readonly string[]): Promise<string[]> {
    const inflight: string[] = [];
    for (const runId of runIds) {
      if (await this.isFinished(runId)) {
        await client.query('delete from run_queue where run_id = $1', [runId]);
      } else {
        inflight.push(runId);
      }
    }
    return inflight;
  }

  /**
   * Takes the oldest runs that may start, `limit` at most: pending, of a thread with no run in
   * progress (the oldest of a thread first); or one whose worker's lease ran out. Says in the same
   * statement how long until the soonest delayed run falls due (by the database's clock), if one
   * waits.
   */
  async claim(workerId: string, leaseSeconds: number, limit: number): Promise<ClaimOutcome> {
    for (;;) {
      try {
        const { rows } = await this.pool.query<ClaimRow>(
          `with next as (
             select q.run_id from run_queue q
              where (q.status = 'pending'
                     and (q.not_before is null or q.not_before <= clock_timestamp())
                     and not exists (select 1 from run_queue r
                                      where r.thread_id = q.thread_id
                                        and (r.status = 'running'
                                             or (r.status = 'pending' and r.created_at < q.created_at))))
                 or (q.status = 'running' and q.lease_until < clock_timestamp())
              order by q.created_at
              limit $3
              for update skip locked
           ), claimed as (
             update run_queue q
                set status = 'running', attempt = q.attempt + 1, worker_id = $1,
                    lease_until = clock_timestamp() + make_interval(secs => $2)
               from next where q.run_id = next.run_id
             returning q.run_id, q.thread_id, q.attempt, q.payload, q.caller, q.cancel_action
           )
           select run_id, thread_id, attempt, payload, caller, cancel_action,
                  null::float8 as due_in_ms
             from claimed
           union all
           select null, null, null, null, null, null,
                  (select ceil(extract(epoch from min(not_before) - clock_timestamp()) * 1000)::float8
                     from run_queue where status = 'pending' and not_before > clock_timestamp())`,
          [workerId, leaseSeconds, limit],
        );
        const due = rows.find((row) => row.run_id === null)?.due_in_ms;
        return {
          runs: rows.filter(isClaimed).map((row) => ({
            runId: row.run_id,
            threadId: row.thread_id,
            attempt: row.attempt,
            payload: openJsonKeys(row.payload),
            caller: row.caller,
            cancelAction: row.cancel_action,
          })),
          dueInMs: due ?? undefined,
        };
      } catch (error) {
        // Another worker started a run of the same thread between our look and our update.
        if ((error as { code?: string }).code !== '23505') throw error;
      }
    }
  }

  async heartbeat(run: ClaimedRun, workerId: string, leaseSeconds: number): Promise<LeaseState> {
    const { rows } = await this.pool.query<{ cancel_action: LeaseState['cancelAction'] }>(
      `update run_queue set lease_until = clock_timestamp() + make_interval(secs => $4)
        where run_id = $1 and worker_id = $2 and attempt = $3
        returning cancel_action`,
      [run.runId, workerId, run.attempt, leaseSeconds],
    );
    const [row] = rows;
    return row
      ? { held: true, cancelAction: row.cancel_action }
      : { held: false, cancelAction: null };
  }

  /**
   * Removes a finished run, if this worker still holds it; says in the same statement whether
   * other runs were waiting then, so that a worker looks for its next run only when one may be.
   */
  async complete(run: ClaimedRun, workerId: string): Promise<{ othersPending: boolean }> {
    const { rows } = await this.pool.query<{ others_pending: boolean }>(
      `with removed as (
         delete from run_queue where run_id = $1 and worker_id = $2 and attempt = $3
       )
       select exists (select 1 from run_queue where status = 'pending' and run_id <> $1)
              as others_pending`,
      [run.runId, workerId, run.attempt],
    );
    return { othersPending: rows[0]?.others_pending !== false };
  }

  /** Hands a run this worker holds back to the queue, for another worker to start at once. */
  async release(run: ClaimedRun, workerId: string): Promise<void> {
    await this.pool.query(
      `update run_queue set status = 'pending', worker_id = null, lease_until = null
        where run_id = $1 and worker_id = $2 and attempt = $3`,
      [run.runId, workerId, run.attempt],
    );
    await this.pool.query('select pg_notify($1, $2)', [RUN_WAKE_CHANNEL, run.runId]);
  }

  /** Whether a wake notice came from this process, whose workers the API woke already. */
  isOwnWake(payload: string): boolean {
    return payload.startsWith(`${this.origin}:`);
  }

  /**
   * Cancels a run. A pending one leaves the queue only once `recordEnd` has recorded how it ended,
   * its row held meanwhile so that no worker claims it: a failure in between leaves it queued, and
   * no run is ever out of the queue with its end unrecorded. A running one is told to stop.
   */
  async cancel(
    runId: string,
    action: 'interrupt' | 'rollback',
    recordEnd: (payload: RunCreatedData) => Promise<void>,
  ): Promise<CancelOutcome> {
    const removed = await this.removePendingOnceRecorded(runId, recordEnd);
    if (removed) return { kind: 'removed_pending', payload: removed };
    const running = await this.pool.query(
      'update run_queue set cancel_action = $2 where run_id = $1 returning run_id',
      [runId, action],
    );
    if (running.rowCount === 0) return { kind: 'absent' };
    await this.pool.query('select pg_notify($1, $2)', [
      RUN_CANCEL_CHANNEL,
      cancelNotice(runId, action),
    ]);
    return { kind: 'signalled_running' };
  }

  private async removePendingOnceRecorded(
    runId: string,
    recordEnd: (payload: RunCreatedData) => Promise<void>,
  ): Promise<RunCreatedData | undefined> {
    const client = await this.pool.connect();
    let unusable = false;
    try {
      // A worker claiming the run holds its row: this waits, then finds it running.
      const [, pending] = (await client.query(
        `begin;
         select payload from run_queue
          where run_id = ${client.escapeLiteral(runId)} and status = 'pending' for update`,
      )) as unknown as [unknown, pg.QueryResult<Pick<QueueRow, 'payload'>>];
      const [row] = pending.rows;
      const payload = row && openJsonKeys(row.payload);
      if (payload) {
        await recordEnd(payload);
        await client.query('delete from run_queue where run_id = $1', [runId]);
      }
      await client.query('commit');
      return payload;
    } catch (error) {
      await client.query('rollback').catch(() => {
        unusable = true;
      });
      throw error;
    } finally {
      client.release(unusable);
    }
  }
}

/** A claimed run, or the last row: no run, and how long until the soonest delayed run is due. */
type ClaimRow = QueueRow | { run_id: null; due_in_ms: number | null };

function isClaimed(row: ClaimRow): row is QueueRow {
  return row.run_id !== null;
}
