import pg from 'pg';
import {
  KEY_STORE_TABLE,
  requireRotationSchema,
  rewrapRotation,
  startRotation,
} from '#libs/encryption';
import type { CustomKeyWrapper } from './custom-encryption.js';

/**
 * A KMS's rotation: every data key the handlers wrapped before it started is unwrapped by their
 * decrypt and wrapped again by their encrypt, with the context it was wrapped with, `batchSize`
 * keys per statement; resumed by running it again. Prints its counts; the log is not rewritten.
 */
export async function rotateThroughHandlers(
  databaseUrl: string,
  wrapper: CustomKeyWrapper,
  graphConfigPath: string,
  batchSize: number,
): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await requireRotationSchema(client);
    const rotation = await startRotation(client, wrapper.id);
    const started = rotation.startedAt.toISOString();
    console.log(
      rotation.resumed
        ? `resuming rotation ${rotation.rotationId} started at ${started} ` +
            `(${rotation.rewrappedBefore} data keys wrapped again before): ` +
            `${rotation.toRewrap} left`
        : `rotation ${rotation.rotationId} started at ${started}: ${rotation.toRewrap} data keys ` +
            `wrapped by the encryption handlers of ${graphConfigPath} to wrap again`,
    );
    let done = 0;
    const total = await rewrapRotation(
      client,
      wrapper.id,
      rotation,
      (wrapped) => wrapper.rewrap(wrapped),
      {
        batchSize,
        onBatch: (batch) => {
          done += batch.rewrapped + batch.skipped;
          console.log(`rewrapped ${done}/${rotation.toRewrap}`);
        },
      },
    );
    console.log(
      `rewrapped ${total.rewrapped} data keys through the encryption handlers (decrypt, then ` +
        `encrypt, each with the context the key was wrapped with), ${total.skipped} skipped ` +
        `(destroyed meanwhile); rotation ${rotation.rotationId} finished ` +
        `(${rotation.rewrappedBefore + total.rewrapped} in all); the event log is unchanged`,
    );
    await reportOtherWrappers(client, wrapper.id);
  } finally {
    await client.end();
  }
}

async function reportOtherWrappers(client: pg.Client, wrapperId: string): Promise<void> {
  const { rows } = await client.query<{ master_key_id: string; keys: number }>(
    `select master_key_id, count(*)::int as keys from ${KEY_STORE_TABLE}
      where master_key_id <> $1 group by master_key_id`,
    [wrapperId],
  );
  for (const row of rows) {
    console.error(
      `berth: ${row.keys} data keys are wrapped by master key ${row.master_key_id}, not by the ` +
        'encryption handlers: a runtime with them will not open those',
    );
    process.exitCode = 1;
  }
}
