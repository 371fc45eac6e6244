import type { ObjectLiteral } from 'typeorm';
import {
  DataKeyStore,
  JSON_KEYS_SCOPE,
  JsonKeyCipher,
  masterKeyWrapper,
  requireMasterKeyOfStore,
  resolveMasterKey,
  type KeyWrapper,
} from '#libs/encryption';
import { useJsonKeyCipher } from './common/json-keys-column.js';
import type { Projection } from '#libs/event-store';
import { openPersistence, type Persistence, type PoolSizes } from '#libs/persistence';
import { ASSISTANT_MIGRATIONS } from './assistants/assistant.entity.js';
import { assistantsProjection } from './assistants/assistants.projection.js';
import { RUN_MIGRATIONS } from './run-records/run.entity.js';
import { runsProjection } from './run-records/runs.projection.js';
import { CRON_MIGRATIONS } from './crons/cron.entity.js';
import { SOCKET_TICKET_MIGRATIONS } from './protocol/socket-ticket.entity.js';
import { cronsProjection } from './crons/crons.projection.js';
import { STORE_MIGRATIONS } from './store/store-item.entity.js';
import { storeProjection } from './store/store.projection.js';
import { THREAD_MIGRATIONS } from './threads/thread.entity.js';
import { threadsProjection } from './threads/threads.projection.js';
import type { StorageConfig } from './runtime.config.js';
import { EncryptingEventStore } from './encryption/encrypting-event-store.js';
import { ENCRYPTION_MIGRATIONS } from './encryption/thread-erasure.migrations.js';
import { RESOURCE_ERASURE_MIGRATIONS } from './encryption/resource-erasure.migrations.js';

const PROJECTIONS = [
  assistantsProjection,
  threadsProjection,
  runsProjection,
  storeProjection,
  cronsProjection,
] as unknown as Projection<ObjectLiteral>[];

/**
 * The runtime's database: its event log (a thread's, a store item's, a cron's and an assistant's
 * content encrypted under its data key, see EncryptingEventStore), its key store, read models and
 * run queue.
 */
export async function openRuntimePersistence(
  config: StorageConfig,
  onError: (error: unknown) => void,
  poolSizes?: PoolSizes,
  customKeys?: KeyWrapper,
): Promise<Persistence> {
  // The application's own encryption (`encryption.path`) wraps the data keys in place of it.
  const wrapper = customKeys ?? masterKeyWrapper(await resolveMasterKey(config.masterKey));
  return openPersistence({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    databaseName: 'berth_runtime',
    eventStoreUrl: config.eventStoreUrl,
    migrations: [
      ...ASSISTANT_MIGRATIONS,
      ...THREAD_MIGRATIONS,
      ...RUN_MIGRATIONS,
      ...STORE_MIGRATIONS,
      ...CRON_MIGRATIONS,
      ...SOCKET_TICKET_MIGRATIONS,
      ...ENCRYPTION_MIGRATIONS,
      ...RESOURCE_ERASURE_MIGRATIONS,
    ],
    projections: PROJECTIONS,
    poolSizes,
    onError,
    wrapEventStore: async (store, pool) => {
      if (!config.encryption) return store;
      await requireMasterKeyOfStore(pool, wrapper);
      const keys = new DataKeyStore(pool, wrapper);
      if (config.jsonKeys.length > 0) {
        const { key } = await keys.keyOf(JSON_KEYS_SCOPE);
        useJsonKeyCipher(new JsonKeyCipher(config.jsonKeys, key));
      }
      return new EncryptingEventStore(store, keys);
    },
  });
}
