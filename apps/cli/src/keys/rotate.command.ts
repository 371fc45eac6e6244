import { access } from 'node:fs/promises';
import { resolve } from 'node:path';
import pg from 'pg';
import { envInteger, envText, parseCommandArgs, usageError, type Environment } from '#libs/config';
import {
  keyFileIn,
  KEY_STORE_TABLE,
  resolveMasterKey,
  requireRotationSchema,
  rewrapKeyStore,
  type MasterKey,
} from '#libs/encryption';
import type { CliEnvironment } from '../cli.config.js';
import { namesEncryptionHandlers, rotateThroughHandlers } from './rotate-through-handlers.js';

export const ROTATE_HELP = `Usage: berth keys rotate [--new-key-file FILE] [--graph-config FILE] [--batch-size N] [--database-url URL]

Wraps every data key of a runtime's database again, a batch per statement; the event log is not
rewritten. Prints how many keys were wrapped again.

Under the master key: wraps them under a new one. Stop the runtime's replicas first, and start
them with the new key after. The current master key is read as the runtime reads it:
BERTH_MASTER_KEY, else LANGGRAPH_AES_KEY, else the file BERTH_MASTER_KEY_FILE (or master-key in
BERTH_DATA_DIR). The new one is read from the environment, never from the command line (shell
history):

  BERTH_NEW_MASTER_KEY     32 bytes as 64 hex digits or base64 (openssl rand -base64 32)
  --new-key-file FILE      or a file holding base64 of 32 bytes, as the runtime's key file

Under the application's encryption handlers ("encryption": {"path": ...} in its langgraph.json):
each key is unwrapped by their decrypt and wrapped again by their encrypt, with the context it
was wrapped with (a KMS's new key version). Point the handlers at the new version first (their
decrypt still opening the old one); replicas may keep running. A rotation stopped half way is
resumed by running the command again.

  --graph-config FILE      the application's langgraph.json; else BERTH_GRAPH_CONFIG
  --batch-size N           keys per statement (1 to 10000, 500)

  --database-url URL       the runtime's database; else DATABASE_URL

Exit codes: 0 rotated (or nothing to rotate), 1 failed, 2 bad usage.`;

export async function rotateKeys(args: readonly string[], env: CliEnvironment): Promise<void> {
  const { values, positionals } = parseCommandArgs(ROTATE_HELP, {
    args: [...args],
    allowPositionals: true,
    options: {
      'new-key-file': { type: 'string' },
      'graph-config': { type: 'string' },
      'batch-size': { type: 'string' },
      'database-url': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(ROTATE_HELP);
    return;
  }
  if (positionals.length > 0) {
    throw usageError(`unexpected argument ${positionals.join(' ')}`, ROTATE_HELP);
  }
  const databaseUrl = values['database-url'] ?? env.databaseUrl;
  if (!databaseUrl) {
    throw usageError('the runtime database: set DATABASE_URL or --database-url', ROTATE_HELP);
  }
  const batchSize = batchSizeOf(values['batch-size']);
  const graphConfig = values['graph-config'] ?? envText(process.env.BERTH_GRAPH_CONFIG);
  if (graphConfig && (await namesEncryptionHandlers(resolve(graphConfig)))) {
    if (envText(process.env.BERTH_NEW_MASTER_KEY) || values['new-key-file']) {
      throw usageError(
        `${graphConfig} names encryption handlers: they wrap the data keys, not a master key ` +
          '(give no new master key)',
        ROTATE_HELP,
      );
    }
    await rotateThroughHandlers(databaseUrl, resolve(graphConfig), batchSize);
    return;
  }
  const current = await currentMasterKey(process.env);
  const next = await newMasterKey(process.env, values['new-key-file']);
  if (next.id === current.id) {
    throw usageError(`the new master key is the current one (${current.id})`, ROTATE_HELP);
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await requireRotationSchema(client);
    const rewrapped = await rewrapKeyStore(client, current, next, batchSize);
    const { rows } = await client.query<{ master_key_id: string; keys: string }>(
      `select master_key_id, count(*) as keys from ${KEY_STORE_TABLE}
        where master_key_id <> $1 group by master_key_id`,
      [next.id],
    );
    console.log(
      `rewrapped ${rewrapped} data keys from master key ${current.id} (${current.source}) ` +
        `to ${next.id}; the event log is unchanged`,
    );
    for (const row of rows) {
      console.error(
        `berth: ${row.keys} data keys are wrapped by master key ${row.master_key_id}, neither ` +
          'of these two: a runtime started with the new key will not open them',
      );
      process.exitCode = 1;
    }
  } finally {
    await client.end();
  }
}

function batchSizeOf(text: string | undefined): number {
  try {
    return envInteger('--batch-size', text, 500, { min: 1, max: 10_000 });
  } catch (error) {
    throw usageError(error instanceof Error ? error.message : String(error), ROTATE_HELP);
  }
}

/** As the runtime resolves it, except that a missing key file is an error, not a new key. */
async function currentMasterKey(env: Environment): Promise<MasterKey> {
  const berthMasterKey = envText(env.BERTH_MASTER_KEY);
  const langgraphAesKey = env.LANGGRAPH_AES_KEY || undefined;
  const keyFile = resolve(
    envText(env.BERTH_MASTER_KEY_FILE) ?? keyFileIn(envText(env.BERTH_DATA_DIR) ?? '.berth'),
  );
  if (!berthMasterKey && !langgraphAesKey) await requireFile(keyFile, 'the current master key');
  return resolveMasterKey({ berthMasterKey, langgraphAesKey, keyFile });
}

async function newMasterKey(env: Environment, file: string | undefined): Promise<MasterKey> {
  const text = envText(env.BERTH_NEW_MASTER_KEY);
  if (text && file) {
    throw usageError('give the new key once: BERTH_NEW_MASTER_KEY or --new-key-file', ROTATE_HELP);
  }
  if (!text && !file) {
    throw usageError('the new key: set BERTH_NEW_MASTER_KEY or --new-key-file', ROTATE_HELP);
  }
  if (text) return resolveMasterKey({ berthMasterKey: text, keyFile: '' });
  const keyFile = resolve(file ?? '');
  await requireFile(keyFile, 'the new master key');
  return resolveMasterKey({ keyFile });
}

async function requireFile(file: string, what: string): Promise<void> {
  await access(file).catch(() => {
    throw new Error(`${what}'s file ${file} does not exist`);
  });
}
