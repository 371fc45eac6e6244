import pg from 'pg';
import {
  PostgresEventStore,
  uuidv7,
  type EventToAppend,
  type Subscription,
} from '#libs/event-store';
import {
  measureThroughput,
  millis,
  openBenchDatabase,
  percentile,
  printTable,
  rate,
  ratio,
  type Row,
  type Throughput,
} from './bench-support.js';
import { chainCostRows } from './chain-cost.js';

const PHASE_MS = Number(process.env.BENCH_PHASE_MS ?? 6000);
/** Berth and the peer take turns, so that drift in the machine's disk hits both alike. */
const ROUNDS = 3;
const LATENCY_SAMPLES = Number(process.env.BENCH_LATENCY_SAMPLES ?? 1000);
const CATCH_UP_PAGE = 1000;
const PAYLOAD = { message: 'x'.repeat(160), tokens: [1, 2, 3, 4, 5, 6, 7, 8] };

function events(count: number): EventToAppend[] {
  return Array.from({ length: count }, (_, n) => ({
    eventId: uuidv7(),
    type: 'BenchEventRecorded',
    data: { ...PAYLOAD, n },
  }));
}

/** The peer: the same payloads inserted with plain SQL into a table with only a primary key. */
class BareTable {
  constructor(private readonly pool: pg.Pool) {}

  async create(): Promise<void> {
    await this.pool.query(
      'create table bench_bare (id bigint generated always as identity primary key, stream_id text not null, data jsonb not null)',
    );
  }

  async insertOne(stream: string): Promise<number> {
    await this.pool.query('insert into bench_bare (stream_id, data) values ($1, $2)', [
      stream,
      JSON.stringify(PAYLOAD),
    ]);
    return 1;
  }

  async insertBatch(stream: string, size: number): Promise<number> {
    const batch = events(size).map((event) => event.data);
    await this.pool.query(
      `insert into bench_bare (stream_id, data)
       select $1, value from jsonb_array_elements($2::jsonb)`,
      [stream, JSON.stringify(batch)],
    );
    return size;
  }

  /** Runs one round of `operation` and reads how much WAL it wrote. */
  async measure(
    clients: number,
    operation: (client: number) => Promise<number>,
  ): Promise<Measured> {
    const before = await this.walPosition();
    const throughput = await measureThroughput(PHASE_MS / ROUNDS, clients, operation);
    const { rows } = await this.pool.query<{ bytes: string }>(
      'select pg_wal_lsn_diff(pg_current_wal_lsn(), $1) as bytes',
      [before],
    );
    return { throughput, walBytes: Number(rows[0]?.bytes ?? Number.NaN) };
  }

  private async walPosition(): Promise<string> {
    const { rows } = await this.pool.query<{ lsn: string }>('select pg_current_wal_lsn() as lsn');
    return rows[0]?.lsn ?? '0/0';
  }

  async readAll(): Promise<number> {
    let after = 0n;
    let read = 0;
    for (;;) {
      const { rows } = await this.pool.query<{ id: string }>(
        'select id, stream_id, data from bench_bare where id > $1 order by id limit $2',
        [after.toString(), CATCH_UP_PAGE],
      );
      read += rows.length;
      const last = rows.at(-1);
      if (!last || rows.length < CATCH_UP_PAGE) return read;
      after = BigInt(last.id);
    }
  }
}

interface Measured {
  readonly throughput: Throughput;
  readonly walBytes: number;
}

async function appendThroughput(store: PostgresEventStore, bare: BareTable): Promise<Row[]> {
  const rows: Row[] = [];
  const cases = [
    { label: '1 client, 1 event per append', clients: 1, size: 1 },
    { label: '8 clients, 1 event per append', clients: 8, size: 1 },
    { label: '1 client, batches of 100', clients: 1, size: 100 },
    { label: '8 clients, batches of 100', clients: 8, size: 100 },
  ];
  for (const { label, clients, size } of cases) {
    const streams = Array.from({ length: clients }, () => `bench-${uuidv7()}`);
    const positions = streams.map(() => -1);
    const appendToStore = async (client: number): Promise<number> => {
      const position = positions[client] ?? -1;
      const result = await store.append(streams[client] ?? '', events(size), {
        expectedPosition: position === -1 ? 'no_stream' : position,
      });
      positions[client] = result.streamPosition;
      return size;
    };
    const insertIntoBare = (client: number): Promise<number> =>
      size === 1
        ? bare.insertOne(streams[client] ?? '')
        : bare.insertBatch(streams[client] ?? '', size);
    const berth: Measured[] = [];
    const peer: Measured[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      berth.push(await bare.measure(clients, appendToStore));
      peer.push(await bare.measure(clients, insertIntoBare));
    }
    const berthRate = combinedRate(berth);
    const peerRate = combinedRate(peer);
    rows.push({
      metric: `appends: ${label} (events/s)`,
      berth: rate(berthRate),
      peer: rate(peerRate),
      ratio: ratio(berthRate, peerRate),
    });
    if (size > 1) {
      const berthWal = walPerItem(berth);
      const peerWal = walPerItem(peer);
      rows.push({
        metric: `  WAL bytes written per event, ${label}`,
        berth: String(Math.round(berthWal)),
        peer: String(Math.round(peerWal)),
        ratio: ratio(berthWal, peerWal),
      });
    }
  }
  return rows;
}

function combinedRate(measured: readonly Measured[]): number {
  const items = measured.reduce((sum, m) => sum + m.throughput.items, 0);
  const seconds = measured.reduce((sum, m) => sum + m.throughput.seconds, 0);
  return items / seconds;
}

function walPerItem(measured: readonly Measured[]): number {
  const bytes = measured.reduce((sum, m) => sum + m.walBytes, 0);
  const items = measured.reduce((sum, m) => sum + m.throughput.items, 0);
  return bytes / items;
}

async function catchUpThroughput(store: PostgresEventStore, bare: BareTable): Promise<Row> {
  let started = performance.now();
  let read = 0;
  let after;
  for (;;) {
    const page = await store.readLog({ after, maxCount: CATCH_UP_PAGE });
    read += page.length;
    after = page.at(-1)?.logPosition;
    if (page.length < CATCH_UP_PAGE) break;
  }
  const berth = read / ((performance.now() - started) / 1000);
  started = performance.now();
  const peerRead = await bare.readAll();
  const peer = peerRead / ((performance.now() - started) / 1000);
  return {
    metric: `global log catch-up, ${read.toLocaleString('en-US')} events (events/s)`,
    berth: rate(berth),
    peer: rate(peer),
    ratio: ratio(berth, peer),
  };
}

/**
 * Appends one event at a time and times each from the moment its append is acknowledged
 * (committed) until the subscriber has it in hand.
 */
async function deliveryLatency(
  writer: PostgresEventStore,
  subscribe: (stream: string) => Subscription,
): Promise<number[]> {
  const stream = `latency-${uuidv7()}`;
  const committedAt = new Map<string, number>();
  const samples: number[] = [];
  const subscription = subscribe(stream);
  const iterator = subscription[Symbol.asyncIterator]();
  const receiving = (async () => {
    while (samples.length < LATENCY_SAMPLES) {
      const next = await iterator.next();
      if (next.done) return;
      if (next.value.streamId !== stream) continue;
      const received = performance.now();
      await Promise.resolve();
      const committed = committedAt.get(next.value.eventId);
      if (committed !== undefined) samples.push(Math.max(0, received - committed));
    }
  })();
  for (let i = 0; i < LATENCY_SAMPLES; i += 1) {
    const [event] = events(1);
    if (!event) break;
    const pending = writer.append(stream, [event]);
    await pending;
    committedAt.set(event.eventId, performance.now());
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await receiving;
  await subscription.close();
  return samples;
}

async function bareInsertLatency(bare: BareTable): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < LATENCY_SAMPLES; i += 1) {
    const started = performance.now();
    await bare.insertOne('latency');
    samples.push(performance.now() - started);
  }
  return samples;
}

async function latencyRows(
  store: PostgresEventStore,
  otherProcess: PostgresEventStore,
  bare: BareTable,
): Promise<Row[]> {
  const peer = await bareInsertLatency(bare);
  const { logPosition: logEnd } = await store.append(`marker-${uuidv7()}`, events(1));
  const cases: [string, (stream: string) => Subscription][] = [
    ['stream subscriber, same process', (stream) => store.subscribeToStream(stream)],
    ['stream subscriber, other process', (stream) => otherProcess.subscribeToStream(stream)],
    ['global-log subscriber, same process', () => store.subscribeToLog({ after: logEnd })],
  ];
  const rows: Row[] = [];
  for (const [label, subscribe] of cases) {
    const samples = await deliveryLatency(store, subscribe);
    for (const p of [50, 99]) {
      rows.push({
        metric: `live delivery p${p}: ${label}`,
        berth: millis(percentile(samples, p)),
        peer: `${millis(percentile(peer, p))} (insert)`,
        ratio: ratio(percentile(samples, p), percentile(peer, p)),
      });
    }
  }
  return rows;
}

async function main(): Promise<void> {
  const database = await openBenchDatabase('event_store');
  const store = await PostgresEventStore.connect({ connectionString: database.url, poolSize: 8 });
  const otherProcess = await PostgresEventStore.connect({ connectionString: database.url });
  const pool = new pg.Pool({ connectionString: database.url, max: 8 });
  const bare = new BareTable(pool);
  try {
    await bare.create();
    const server = await pool.query<{ server_version: string }>('show server_version');
    console.log(
      `Event store benchmark on ${database.where} (PostgreSQL ${server.rows[0]?.server_version ?? '?'}), ` +
        `${PHASE_MS} ms per throughput case and side in ${ROUNDS} alternating rounds, ` +
        `${LATENCY_SAMPLES} latency samples`,
    );
    const rows = [
      ...(await appendThroughput(store, bare)),
      await catchUpThroughput(store, bare),
      ...(await latencyRows(store, otherProcess, bare)),
    ];
    printTable(
      'Berth event store (PostgreSQL adapter) vs plain INSERTs into a bare table',
      'bare insert (peer)',
      rows,
    );
    console.log(
      '\nRatios: rates are berth / peer (higher is better); latencies are berth / peer (lower is better).' +
        '\nGoals: batched appends >= 0.70 of the bare insert rate; live delivery p50 < 5 ms.',
    );
    printTable(
      'The hash chain (docs/audit.md): appends to a sealed log vs one never sealed, in turns',
      'chain off (peer)',
      await chainCostRows(PHASE_MS),
    );
    console.log('\nGoal: appends with the chain sealed >= 0.95 of those without.');
  } finally {
    await pool.end();
    await otherProcess.close();
    await store.close();
    await database.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
