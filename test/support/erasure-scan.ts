import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import {
  DataKeyStore,
  keyFileIn,
  openFields,
  resolveMasterKey,
  sealedPartOf,
  type JsonFields,
  type KeyWrapper,
} from '#libs/encryption';
import { queryRows } from './database-query.js';

/**
 * What an erasure test reads of a runtime's database: every row of every table, and the log's
 * events as a dump taken earlier would give them to whoever holds the key store as it stands.
 */
export interface DumpedEvent {
  readonly stream_id: string;
  readonly event_type: string;
  readonly data: JsonFields;
}

/** Every row of every table of the database, as text: a dump without pg_dump. */
export async function dumpTables(url: string): Promise<Map<string, string[]>> {
  const tables = await queryRows<{ name: string }>(
    url,
    `select quote_ident(table_name) as name from information_schema.tables
      where table_schema = 'public' and table_type = 'BASE TABLE' order by table_name`,
  );
  const dump = new Map<string, string[]>();
  for (const { name } of tables) {
    const rows = await queryRows<{ row: string }>(url, `select t::text as row from ${name} t`);
    dump.set(
      name,
      rows.map((row) => row.row),
    );
  }
  return dump;
}

export function dumpEvents(url: string): Promise<DumpedEvent[]> {
  return queryRows<DumpedEvent>(
    url,
    'select stream_id, event_type, data from es_events order by global_position',
  );
}

export const allRows = (dump: Map<string, string[]>): string[] => [...dump.values()].flat();

export function occurrences(texts: Iterable<string>, planted: string): number {
  let found = 0;
  for (const text of texts) found += text.split(planted).length - 1;
  return found;
}

/**
 * The dumped events opened with the key store as it stands now (what a thief could read), its keys
 * unwrapped by the master key (given as BERTH_MASTER_KEY is) or by an application's handlers.
 */
export async function openedWithTodaysKeys(
  url: string,
  masterKey: string | KeyWrapper,
  events: readonly DumpedEvent[],
): Promise<string[]> {
  const master =
    typeof masterKey === 'string'
      ? await resolveMasterKey({
          berthMasterKey: masterKey,
          keyFile: keyFileIn(join(tmpdir(), 'unused')),
        })
      : masterKey;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const keys = new DataKeyStore(client, master);
    const texts: string[] = [];
    for (const event of events) {
      const sealed = sealedPartOf(event.data);
      const key = sealed && (await keys.keyById(sealed.key_id));
      texts.push(JSON.stringify(sealed && key ? openFields(event.data, sealed, key) : event.data));
    }
    return texts;
  } finally {
    await client.end();
  }
}
