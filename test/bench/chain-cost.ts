import { PostgresEventStore, uuidv7, type EventToAppend } from '#libs/event-store';
import {
  measureThroughput,
  openBenchDatabase,
  rate,
  ratio,
  type Row,
  type Throughput,
} from './bench-support.js';

const PAYLOAD = { message: 'x'.repeat(160), tokens: [1, 2, 3, 4, 5, 6, 7, 8] };
/** Short turns, many of them: whatever else the machine does hits both sides alike. */
const TURNS = 10;

function events(count: number): EventToAppend[] {
  return Array.from({ length: count }, (_, n) => ({
    eventId: uuidv7(),
    type: 'BenchEventRecorded',
    data: { ...PAYLOAD, n },
  }));
}

/**
 * What the hash chain costs the appends: the same appends to two logs on the same server, one
 * whose store seals every second (the default), one whose store never seals, in turns. Then how
 * fast the sealed log verifies.
 */
export async function chainCostRows(phaseMs: number): Promise<Row[]> {
  const sealedDb = await openBenchDatabase('chain_on');
  const plainDb = await openBenchDatabase('chain_off');
  const sealed = await PostgresEventStore.connect({ connectionString: sealedDb.url, poolSize: 8 });
  const plain = await PostgresEventStore.connect({
    connectionString: plainDb.url,
    poolSize: 8,
    sealIntervalMs: 0,
  });
  try {
    const rows: Row[] = [];
    for (const { label, clients, size } of [
      { label: '1 client, 1 event per append', clients: 1, size: 1 },
      { label: '8 clients, batches of 100', clients: 8, size: 100 },
    ]) {
      const on: Throughput[] = [];
      const off: Throughput[] = [];
      for (let turn = 0; turn < TURNS; turn += 1) {
        on.push(await appendFor(sealed, phaseMs / TURNS, clients, size));
        off.push(await appendFor(plain, phaseMs / TURNS, clients, size));
      }
      rows.push({
        metric: `appends with the chain sealed: ${label} (events/s)`,
        berth: rate(combined(on)),
        peer: rate(combined(off)),
        ratio: ratio(combined(on), combined(off)),
      });
    }
    const started = performance.now();
    const verification = await sealed.audit().verify();
    const seconds = (performance.now() - started) / 1000;
    rows.push({
      metric: `verify (sealing what was left first), ${verification.events} events (events/s)`,
      berth: rate(verification.events / seconds),
      peer: '-',
      ratio: '-',
    });
    return rows;
  } finally {
    await sealed.close();
    await plain.close();
    await sealedDb.close();
    await plainDb.close();
  }
}

async function appendFor(
  store: PostgresEventStore,
  ms: number,
  clients: number,
  size: number,
): Promise<Throughput> {
  const streams = Array.from({ length: clients }, () => `bench-${uuidv7()}`);
  return measureThroughput(ms, clients, async (client) => {
    await store.append(streams[client] ?? '', events(size));
    return size;
  });
}

function combined(measured: readonly Throughput[]): number {
  const items = measured.reduce((sum, m) => sum + m.items, 0);
  const seconds = measured.reduce((sum, m) => sum + m.seconds, 0);
  return items / seconds;
}
