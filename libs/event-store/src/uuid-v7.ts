import { randomFillSync } from 'node:crypto';

const RANDOM_POOL_SIZE = 16 * 256;
const randomPool = Buffer.alloc(RANDOM_POOL_SIZE);
let poolOffset = RANDOM_POOL_SIZE;
let lastMillis = -1;
let sequence = 0;

function randomBytes16(): Buffer {
  if (poolOffset >= RANDOM_POOL_SIZE) {
    randomFillSync(randomPool);
    poolOffset = 0;
  }
  const bytes = randomPool.subarray(poolOffset, poolOffset + 16);
  poolOffset += 16;
  return bytes;
}

/**
 * A time-ordered uuid (RFC 9562 version 7), increasing within this process. Ids that grow with
 * time land at the right edge of a btree index: random ids scatter inserts over the whole index
 * and, after every checkpoint, make PostgreSQL log a full page for each page they touch.
 */
export function uuidv7(now: number = Date.now()): string {
  let millis = now;
  if (millis <= lastMillis) {
    sequence += 1;
    if (sequence > 0xfff) {
      sequence = 0;
      lastMillis += 1;
    }
    millis = lastMillis;
  } else {
    lastMillis = millis;
    sequence = 0;
  }
  const bytes = Buffer.from(randomBytes16());
  bytes.writeUIntBE(millis, 0, 6);
  bytes[6] = 0x70 | (sequence >> 8);
  bytes[7] = sequence & 0xff;
  bytes[8] = 0x80 | ((bytes[8] ?? 0) & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
