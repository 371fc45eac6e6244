import pg from 'pg';
import {
  DataKeyStore,
  openFields,
  resolveMasterKey,
  sealedPartOf,
  type JsonFields,
} from '#libs/encryption';

export interface OpenedEvent {
  readonly stream_id: string;
  readonly event_type: string;
  /** The event's data opened with the key store as it stands; as stored when its key is gone. */
  readonly data: JsonFields;
  /** Whether the data was encrypted and its key found. */
  readonly opened: boolean;
}

/**
 * Events of a runtime's log as the database holds them (`select stream_id, event_type, data` from
 * es_events, with `where` and its values), each opened with the runtime's key store under the
 * master key given as BERTH_MASTER_KEY: what someone holding both could read.
 */
export async function openedEvents(
  url: string,
  masterKey: string,
  where: string,
  values: unknown[] = [],
): Promise<OpenedEvent[]> {
  const master = await resolveMasterKey({ berthMasterKey: masterKey, keyFile: '/nonexistent' });
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{
      stream_id: string;
      event_type: string;
      data: JsonFields;
    }>(`select stream_id, event_type, data from es_events ${where}`, values);
    const keys = new DataKeyStore(client, master);
    return await Promise.all(
      rows.map(async (row) => {
        const sealed = sealedPartOf(row.data);
        const key = sealed && (await keys.keyById(sealed.key_id));
        return sealed && key
          ? { ...row, data: openFields(row.data, sealed, key), opened: true }
          : { ...row, opened: false };
      }),
    );
  } finally {
    await client.end();
  }
}
