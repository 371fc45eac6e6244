import pg from 'pg';

/** The rows of one query on the database at `url`, on a connection of its own. */
export async function queryRows<Row extends pg.QueryResultRow>(
  url: string,
  sql: string,
  values: unknown[] = [],
): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

/** The event log as stored: any rewrite of an event changes this digest. */
export async function eventLogDigest(databaseUrl: string): Promise<string> {
  const [row] = await queryRows<{ digest: string }>(
    databaseUrl,
    `select md5(string_agg(event_id::text || data::text, ',' order by global_position)) as digest
       from es_events`,
  );
  return row?.digest ?? '';
}
