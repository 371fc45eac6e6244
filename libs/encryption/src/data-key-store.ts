import { randomUUID } from 'node:crypto';
import { newDataKey } from './aes-gcm.js';
import { DataKeyCache } from './data-key-cache.js';
import { ForeignMasterKeyError, rewrapDataKey, type WrappedKey } from './key-wrap.js';
import { isKeyWrapper, masterKeyWrapper, type KeyWrapper } from './key-wrapper.js';
import type { MasterKey } from './master-key.js';

/** What the key store needs of a PostgreSQL pool or client. */
export interface Queryable {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

export const KEY_STORE_TABLE = 'encryption_keys';
export const KEY_ROTATIONS_TABLE = 'encryption_key_rotations';

/**
 * The key store, apart from the log: one live data key per scope (`thread:<id>`, ...), wrapped by
 * the master key. Destroying a scope's key deletes its row: what it encrypted can no longer be read.
 */
export const KEY_STORE_MIGRATIONS = [
  {
    version: 2701,
    name: 'the key store',
    sql: `
      create table ${KEY_STORE_TABLE} (
        key_id uuid primary key,
        scope text not null unique,
        master_key_id text not null,
        wrapped_key text not null,
        created_at timestamptz not null default now()
      );
      create index ${KEY_STORE_TABLE}_master on ${KEY_STORE_TABLE} (master_key_id);
    `,
  },
  {
    // When each key was last wrapped, and the rotations through an application's encryption
    // handlers: a rotation re-wraps the keys wrapped before it started, and resumes after a stop.
    version: 2704,
    name: 'key rotations through the encryption handlers',
    sql: `
      alter table ${KEY_STORE_TABLE} add column wrapped_at timestamptz not null default now();
      create table ${KEY_ROTATIONS_TABLE} (
        rotation_id uuid primary key,
        wrapper_id text not null,
        started_at timestamptz not null default now(),
        finished_at timestamptz,
        rewrapped integer not null default 0
      );
      create unique index ${KEY_ROTATIONS_TABLE}_unfinished on ${KEY_ROTATIONS_TABLE} (wrapper_id)
        where finished_at is null;
    `,
  },
] as const;

interface KeyRow {
  readonly key_id: string;
  readonly scope: string;
  readonly master_key_id: string;
  readonly wrapped_key: string;
}

const wrappedOf = (row: KeyRow): WrappedKey => ({
  keyId: row.key_id,
  scope: row.scope,
  masterKeyId: row.master_key_id,
  wrapped: row.wrapped_key,
});

/** A data key ready to encrypt with, and the id that names it in what it encrypts. */
export interface DataKey {
  readonly keyId: string;
  readonly key: Buffer;
}

const KEY_OF_SCOPE = `
  with made as (
    insert into ${KEY_STORE_TABLE} (key_id, scope, master_key_id, wrapped_key)
    values ($1, $2, $3, $4)
    on conflict (scope) do nothing
    returning key_id, scope, master_key_id, wrapped_key
  )
  select * from made
  union all
  select key_id, scope, master_key_id, wrapped_key from ${KEY_STORE_TABLE} where scope = $2
  limit 1`;

export class DataKeyStore {
  private readonly cache: DataKeyCache;
  private readonly scopes = new Map<string, string>();
  private readonly loading = new Map<string, Promise<Buffer | undefined>>();
  private readonly making = new Map<string, Promise<DataKey>>();
  private readonly wrapper: KeyWrapper;

  constructor(
    private readonly db: Queryable,
    wrapper: MasterKey | KeyWrapper,
    cache?: DataKeyCache,
  ) {
    this.wrapper = isKeyWrapper(wrapper) ? wrapper : masterKeyWrapper(wrapper);
    this.cache = cache ?? new DataKeyCache();
  }

  /** The scope's live key, made (and stored) the first time the scope is written. */
  keyOf(scope: string): Promise<DataKey> {
    const known = this.scopes.get(scope);
    const cached = known === undefined ? undefined : this.cache.get(known);
    if (known !== undefined && cached) return Promise.resolve({ keyId: known, key: cached });
    const pending = this.making.get(scope);
    if (pending) return pending;
    const make = this.make(scope).finally(() => this.making.delete(scope));
    this.making.set(scope, make);
    return make;
  }

  private async make(scope: string): Promise<DataKey> {
    const keyId = randomUUID();
    const made = newDataKey();
    const wrapped = await this.wrapper.wrap(keyId, scope, made);
    const rows = await this.rows(KEY_OF_SCOPE, [keyId, scope, this.wrapper.id, wrapped]);
    // A key another process made meanwhile is not in this statement's snapshot: read it after.
    const row =
      rows[0] ??
      (
        await this.rows(
          `select key_id, scope, master_key_id, wrapped_key from ${KEY_STORE_TABLE} where scope = $1`,
          [scope],
        )
      )[0];
    if (!row) throw new Error(`The key store made no key for ${scope}`);
    const key = row.key_id === keyId ? made : await this.unwrap(wrappedOf(row));
    this.remember(row.key_id, scope, key);
    return { keyId: row.key_id, key };
  }

  /** Whether this process holds the scope's live key in memory. */
  holds(scope: string): boolean {
    const keyId = this.scopes.get(scope);
    return keyId !== undefined && this.cache.get(keyId) !== undefined;
  }

  /** The key of that id when this process holds it in memory: no round trip. */
  keyInMemory(keyId: string): Buffer | undefined {
    return this.cache.get(keyId);
  }

  /** The key of that id, or undefined when it was destroyed (or never was). */
  keyById(keyId: string): Promise<Buffer | undefined> {
    const cached = this.cache.get(keyId);
    if (cached) return Promise.resolve(cached);
    const pending = this.loading.get(keyId);
    if (pending) return pending;
    const load = this.load(keyId).finally(() => this.loading.delete(keyId));
    this.loading.set(keyId, load);
    return load;
  }

  /** Deletes the scope's key (through `db`, a transaction's client when it goes with others). */
  async destroy(scope: string, db: Queryable = this.db): Promise<void> {
    await db.query(`delete from ${KEY_STORE_TABLE} where scope = $1`, [scope]);
    this.forget(scope);
  }

  /** Drops the scope's key from memory, once it is destroyed (by this process or another). */
  forget(scope: string): void {
    this.scopes.delete(scope);
    this.cache.forgetScope(scope);
  }

  private async load(keyId: string): Promise<Buffer | undefined> {
    const rows = await this.rows(
      `select key_id, scope, master_key_id, wrapped_key from ${KEY_STORE_TABLE} where key_id = $1`,
      [keyId],
    );
    const row = rows[0];
    if (!row) return undefined;
    const key = await this.unwrap(wrappedOf(row));
    this.remember(keyId, row.scope, key);
    return key;
  }

  private unwrap(wrapped: WrappedKey): Promise<Buffer> {
    if (wrapped.masterKeyId !== this.wrapper.id) {
      throw new ForeignMasterKeyError(
        `The data key ${wrapped.keyId} is wrapped by master key ${wrapped.masterKeyId}, not by the ` +
          `configured one (${this.wrapper.id}): set the master key it was written with`,
      );
    }
    return this.wrapper.unwrap(wrapped);
  }

  private async rows(text: string, values: unknown[]): Promise<KeyRow[]> {
    return (await this.db.query(text, values)).rows as KeyRow[];
  }

  private remember(keyId: string, scope: string, key: Buffer): void {
    this.scopes.set(scope, keyId);
    this.cache.set(keyId, scope, key);
  }
}

/**
 * Refuses a master key that did not wrap every data key of the store (another one, or a rotation
 * left half done): a runtime started with it would fail on every read of what those keys encrypt.
 */
export async function requireMasterKeyOfStore(
  db: Queryable,
  master: Pick<KeyWrapper, 'id' | 'source'>,
): Promise<void> {
  const rows = (
    await db.query(
      `select master_key_id, count(*)::int as keys from ${KEY_STORE_TABLE}
        where master_key_id <> $1 group by master_key_id order by keys desc`,
      [master.id],
    )
  ).rows as { master_key_id: string; keys: number }[];
  const [foreign] = rows;
  if (!foreign) return;
  throw new ForeignMasterKeyError(
    `The key store holds ${foreign.keys} data keys wrapped by master key ` +
      `${foreign.master_key_id}, not by the configured one (${master.id}, from ${master.source}): ` +
      'start with the master key they were wrapped with (after berth keys rotate, the new one)',
  );
}

/**
 * Wraps every data key wrapped by `from` again with `to`, a batch per transaction: the log is not
 * rewritten. Returns how many keys were wrapped again.
 */
export async function rewrapKeyStore(
  db: Queryable,
  from: MasterKey,
  to: MasterKey,
  batchSize = 500,
): Promise<number> {
  let count = 0;
  for (;;) {
    const rows = (
      await db.query(
        `select key_id, scope, master_key_id, wrapped_key from ${KEY_STORE_TABLE}
        where master_key_id = $1 limit $2`,
        [from.id, batchSize],
      )
    ).rows as KeyRow[];
    if (rows.length === 0 || from.id === to.id) return count;
    const rewrapped = rows.map((row) => rewrapDataKey(from, to, wrappedOf(row)));
    await db.query(
      `update ${KEY_STORE_TABLE} as k
          set master_key_id = $1, wrapped_key = w.wrapped, wrapped_at = now()
         from unnest($2::uuid[], $3::text[]) as w(key_id, wrapped)
        where k.key_id = w.key_id and k.master_key_id = $4`,
      [to.id, rewrapped.map((w) => w.keyId), rewrapped.map((w) => w.wrapped), from.id],
    );
    count += rewrapped.length;
  }
}
