import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@langchain/langgraph-sdk';
import { queryRows } from '../../support/database-query.js';
import { startRuntime, type RuntimeProcess } from '../../support/runtime-process.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import { within } from '../../support/within.js';

const MINUTE = 60_000;
const SECOND = 1_000;
/** About how long after its start the replicas answer and the crons are made. */
const EXPECTED_START_MS = 15_000;
/** Where in its minute the scheduler's clock should be when the crons are made. */
const CREATE_AT_PHASE_MS = { earliest: 40_000, aimed: 48_000, latest: 57_000 };

interface Fired {
  readonly tick: string;
  readonly previous_tick: string | null;
  readonly run_id: string;
  readonly fired_at: string;
}

/**
 * Crons on real minute boundaries, with two runtime processes on one database: each tick makes
 * exactly one run, and a tick missed while every process was down makes one catch-up run (the
 * replica started again told, by BERTH_CRON_CLOCK_AHEAD_SECONDS, that a minute has passed).
 * The replicas' cron clock runs ahead by less than a minute, so that the crons are made a few
 * seconds before its minute ends, and before the machine's: their first tick comes at once, not
 * up to a minute later, and is still the first tick after their creation on either clock.
 */
describe('cron firing across replicas and restarts', () => {
  let database: TestDatabase;
  let replicas: RuntimeProcess[] = [];
  let aheadMs = 0;
  let env: Record<string, string> = {};

  /** Resolves once the scheduler's clock is late in the same minute as the machine's. */
  const untilLateInSchedulerMinute = async (): Promise<void> => {
    const inWindow = (): boolean => {
      const phase = (Date.now() % MINUTE) + aheadMs;
      return phase >= CREATE_AT_PHASE_MS.earliest && phase <= CREATE_AT_PHASE_MS.latest;
    };
    while (!inWindow()) await new Promise((done) => setTimeout(done, 100));
  };

  beforeAll(async () => {
    database = await createTestDatabase('cron_firing');
    const phase = (Date.now() + EXPECTED_START_MS) % MINUTE;
    aheadMs = Math.max(0, Math.floor((CREATE_AT_PHASE_MS.aimed - phase) / SECOND) * SECOND);
    env = {
      BERTH_CRON_POLL_SECONDS: '1',
      BERTH_THREAD_SWEEP_SECONDS: '1',
      BERTH_CRON_CLOCK_AHEAD_SECONDS: String(aheadMs / SECOND),
    };
    replicas = await Promise.all([
      startRuntime({ databaseUrl: database.url, env }),
      startRuntime({ databaseUrl: database.url, env }),
    ]);
  }, 90_000);

  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await database.drop();
  });

  const query = <Row extends Record<string, unknown>>(sql: string, values: unknown[]) =>
    queryRows<Row>(database.url, sql, values);

  const fired = async (cronId: string): Promise<Fired[]> =>
    (
      await query<{ data: Fired }>(
        `select data from es_events where stream_id = $1 and event_type = 'CronFired'
          order by stream_position`,
        [`cron-${cronId}`],
      )
    ).map((row) => row.data);

  /** The ids of the runs created in the log, of the run streams given or of all. */
  const runsCreated = async (streams?: string[]): Promise<string[]> =>
    (
      await query<{ stream_id: string }>(
        `select stream_id from es_events
          where event_type = 'RunCreated' and ($1::text[] is null or stream_id = any($1))`,
        [streams ?? null],
      )
    ).map((row) => row.stream_id.slice('run-'.length));

  /**
   * The runs made for the cron's ticks. A run's metadata, where its cron_id is, is sealed in the
   * log under its thread's key; its stream is not, and a tick's run has the id its CronFired names.
   * That no other run was made is checked against every run of the database at the end.
   */
  const runsOf = async (cronId: string): Promise<string[]> =>
    runsCreated((await fired(cronId)).map((fire) => `run-${fire.run_id}`));

  async function untilFired(cronId: string, count: number, timeoutMs: number): Promise<Fired[]> {
    const poll = async (): Promise<Fired[]> => {
      for (;;) {
        const ticks = await fired(cronId);
        if (ticks.length >= count) return ticks;
        await new Promise((done) => setTimeout(done, 250));
      }
    };
    return within(poll(), timeoutMs, `${count} ticks of cron ${cronId} fired`);
  }

  it(
    'fires within the minute, one run per tick with two replicas; one catch-up run after a stop',
    async () => {
      const [first] = replicas;
      if (!first) throw new Error('no replica');
      const client = new Client({ apiUrl: first.url, apiKey: first.apiKey });
      const thread = await client.threads.create();
      await within(untilLateInSchedulerMinute(), MINUTE, 'the scheduler late in its minute');
      const stateless = await client.crons.create('custom', {
        schedule: '* * * * *',
        input: { steps: 1 },
      });
      const onThread = await client.crons.createForThread(thread.thread_id, 'custom', {
        schedule: '* * * * *',
        input: { steps: 1 },
      });
      const createdAt = Date.parse(stateless.created_at);
      // A thread that expires (a deletion that does not cascade to its crons) before its first tick.
      const doomed = await client.threads.create({ ttl: 0.02 });
      const orphan = await client.crons.createForThread(doomed.thread_id, 'custom', {
        schedule: '* * * * *',
        input: { steps: 1 },
      });

      const two = await untilFired(stateless.cron_id, 2, MINUTE + 40_000);
      const [tick1, tick2] = two.map((fire) => Date.parse(fire.tick));
      expect(tick1).toBeGreaterThan(createdAt);
      expect(tick1).toBeLessThanOrEqual(createdAt + MINUTE);
      expect((tick2 ?? 0) - (tick1 ?? 0)).toBe(MINUTE);
      for (const fire of two) {
        expect(Date.parse(fire.fired_at) - Date.parse(fire.tick)).toBeLessThan(10_000);
      }
      const settled = async (cronId: string, count: number): Promise<string[]> => {
        for (;;) {
          const runs = await runsOf(cronId);
          if (runs.length >= count) return runs;
          await new Promise((done) => setTimeout(done, 250));
        }
      };
      const runs = await within(settled(stateless.cron_id, 2), 20_000, 'the runs of two ticks');
      expect(runs.sort()).toEqual(two.map((fire) => fire.run_id).sort());

      // A tick found the thread gone: the cron went with it, that tick making no run (a tick
      // before the thread expired, when created just before a minute, made one). The same pass
      // of the scheduler handles it, maybe just after the cron awaited above.
      const orphanTypes = async (): Promise<string[]> => {
        for (;;) {
          const rows = await query<{ event_type: string }>(
            'select event_type from es_events where stream_id = $1 order by stream_position',
            [`cron-${orphan.cron_id}`],
          );
          const found = rows.map((row) => row.event_type);
          if (found.at(-1) === 'CronDeleted') return found;
          await new Promise((done) => setTimeout(done, 250));
        }
      };
      const types = await within(orphanTypes(), 15_000, 'the orphaned cron deleted');
      expect(types.at(-1)).toBe('CronDeleted');
      const orphanFires = types.filter((type) => type === 'CronFired').length;
      expect(orphanFires).toBeGreaterThanOrEqual(1);
      expect(await runsOf(orphan.cron_id)).toHaveLength(orphanFires - 1);

      const threadTicks = await untilFired(onThread.cron_id, 2, 30_000);
      const threadRuns = await within(
        settled(onThread.cron_id, threadTicks.length),
        20_000,
        'thread runs',
      );
      expect(new Set(threadRuns).size).toBe(threadTicks.length);
      const listed = await client.runs.list(thread.thread_id);
      expect(listed.every((run) => run.metadata?.['cron_id'] === onThread.cron_id)).toBe(true);

      // Every replica dies at once, just after a tick; the next tick passes while none runs: the
      // replica started again keeps the cron scheduler's clock a minute further ahead, so that
      // tick is past when it starts, as after a minute down.
      const before = await fired(stateless.cron_id);
      await Promise.all(replicas.map((replica) => replica.kill()));
      const lastTick = Date.parse(before.at(-1)?.tick ?? '');
      const missedTick = lastTick + MINUTE;
      replicas = [
        await startRuntime({
          databaseUrl: database.url,
          env: { ...env, BERTH_CRON_CLOCK_AHEAD_SECONDS: String((aheadMs + MINUTE) / SECOND) },
        }),
      ];

      const after = await untilFired(stateless.cron_id, before.length + 1, 30_000);
      const catchUp = after[before.length];
      expect(catchUp?.previous_tick).toBe(before.at(-1)?.tick);
      const catchUpTick = Date.parse(catchUp?.tick ?? '');
      expect(catchUpTick).toBeGreaterThanOrEqual(missedTick);
      expect(catchUpTick).toBeLessThanOrEqual(Date.parse(catchUp?.fired_at ?? ''));
      const allRuns = await within(
        settled(stateless.cron_id, after.length),
        20_000,
        'the catch-up run',
      );
      expect(new Set(allRuns).size).toBe(after.length);
      const ticks = after.map((fire) => fire.tick);
      expect(new Set(ticks).size).toBe(ticks.length);

      // The crons' ticks made every run there is (read first: a tick fires before its run).
      const everyRun = await runsCreated();
      const ofTicks = (
        await Promise.all([stateless, onThread, orphan].map((cron) => runsOf(cron.cron_id)))
      ).flat();
      expect(ofTicks).toEqual(expect.arrayContaining(everyRun));
      expect(new Set(everyRun).size).toBe(everyRun.length);
    },
    5 * MINUTE,
  );
});
