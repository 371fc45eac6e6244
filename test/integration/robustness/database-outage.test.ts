import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRuntime, type RuntimeProcess } from '../../support/runtime-process.js';
import { within } from '../../support/within.js';

jest.setTimeout(120_000);

interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown> | null;
  readonly retryAfter: string | null;
}

interface Acknowledged {
  readonly threadId: string;
  readonly runId?: string;
}

/**
 * The agent runtime on the embedded PostgreSQL it starts itself (no DATABASE_URL), with writes
 * and runs in flight when the postmaster is killed (kill -9): the runtime notices, says so once,
 * answers 503 (on /ok and on data routes) while the database is down, restarts the cluster on
 * the same data directory, and loses nothing it acknowledged.
 */
describe('a kill -9 of the embedded PostgreSQL', () => {
  let dataDir: string;
  let runtime: RuntimeProcess;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'berth-outage-'));
    runtime = await startRuntime({
      databaseUrl: '',
      env: { BERTH_DATA_DIR: dataDir },
    });
  }, 90_000);

  afterAll(async () => {
    await runtime.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  async function call(method: string, path: string, body?: unknown): Promise<Answer> {
    try {
      const response = await fetch(`${runtime.url}${path}`, {
        method,
        headers: { 'x-api-key': runtime.apiKey, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(20_000),
      });
      const text = await response.text();
      let parsed: Record<string, unknown> | null = null;
      try {
        parsed = text ? (JSON.parse(text) as Record<string, unknown>) : null;
      } catch {
        parsed = { text };
      }
      return {
        status: response.status,
        body: parsed,
        retryAfter: response.headers.get('retry-after'),
      };
    } catch (error) {
      return { status: 0, body: { error: String(error) }, retryAfter: null };
    }
  }

  /** A thread, then a run on it: each acknowledged write is remembered. */
  async function writer(acknowledged: Acknowledged[], answers: Answer[], stop: () => boolean) {
    while (!stop()) {
      const thread = await call('POST', '/threads', { metadata: { test: 'outage' } });
      answers.push(thread);
      if (thread.status !== 200 && thread.status !== 201) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        continue;
      }
      const threadId = String(thread.body?.thread_id);
      acknowledged.push({ threadId });
      const run = await call('POST', `/threads/${threadId}/runs`, {
        assistant_id: 'agent',
        input: { messages: [{ role: 'user', content: 'Weather in Oslo?' }] },
      });
      answers.push(run);
      if (run.status === 200 || run.status === 201) {
        acknowledged.push({ threadId, runId: String(run.body?.run_id) });
      }
    }
  }

  async function postmasterPid(): Promise<number> {
    const content = await readFile(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8');
    return Number.parseInt(content.split('\n')[0] ?? '', 10);
  }

  async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>) {
    const poll = async (): Promise<T> => {
      for (;;) {
        const value = await probe();
        if (value !== undefined) return value;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    return within(poll(), timeoutMs, `${what}\n${runtime.output().slice(-4000)}`);
  }

  it('is noticed, reported once, restarted, and loses nothing acknowledged', async () => {
    const acknowledged: Acknowledged[] = [];
    const answers: Answer[] = [];
    let stopping = false;
    const writers = Array.from({ length: 4 }, () => writer(acknowledged, answers, () => stopping));
    await until('no write was acknowledged', 20_000, () =>
      Promise.resolve(acknowledged.filter((entry) => entry.runId).length >= 8 ? true : undefined),
    );

    const pid = await postmasterPid();
    const linesBefore = runtime.logLines().length;
    const answersBefore = answers.length;
    process.kill(pid, 'SIGKILL');

    const down = await until('GET /ok did not answer 503', 10_000, async () => {
      const answer = await call('GET', '/ok');
      return answer.status === 503 ? answer : undefined;
    });
    expect(down.body).toMatchObject({ ok: false, database: { ok: false } });
    expect(String(down.body?.detail)).toMatch(/database/i);

    // Data routes say the database is unavailable (503, Retry-After), never 500.
    const refused = await until('no data route answered 503', 10_000, async () => {
      const answer = await call('GET', '/threads/00000000-0000-4000-8000-000000000000');
      return answer.status === 503 ? answer : undefined;
    });
    expect(String(refused.body?.detail)).toMatch(/^the database is unavailable/);
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);

    const back = await until('GET /ok did not answer 200 again', 45_000, async () => {
      const answer = await call('GET', '/ok');
      return answer.status === 200 ? answer : undefined;
    });
    expect(back.body).toMatchObject({ ok: true });
    expect(await postmasterPid()).not.toBe(pid);

    // Keep writing a little on the restarted cluster, then stop.
    const afterRestart = acknowledged.length;
    await until('no write was acknowledged after the restart', 20_000, () =>
      Promise.resolve(acknowledged.length > afterRestart + 4 ? true : undefined),
    );
    stopping = true;
    await Promise.all(writers);

    const during = answers.slice(answersBefore);
    expect(during.filter((answer) => answer.status >= 500 && answer.status !== 503)).toEqual([]);

    // The outage is logged once when it starts and once when it ends, not once per request.
    const errors = runtime
      .logLines()
      .slice(linesBefore)
      .filter((line) => line.level === 'error' || line.level === 50 || line.level === 'fatal');
    const said = errors.map((line) => `${String(line.context)}: ${String(line.msg)}`);
    // One line from the supervisor of the cluster, one from the connections that lost it.
    expect(said).toHaveLength(2);
    expect(said).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^database: The database cannot be reached/),
        expect.stringMatching(/^embedded-postgres: .* was killed \(SIGKILL\)/),
      ]),
    );
    expect(during.filter((answer) => answer.status === 503).length).toBeGreaterThan(said.length);
    const text = runtime.output();
    expect(text).toMatch(/The embedded PostgreSQL server is back/);
    expect(text).toMatch(/The database is reachable again/);

    // Every acknowledged write is still there, and every acknowledged run finishes.
    for (const entry of acknowledged) {
      const path = entry.runId
        ? `/threads/${entry.threadId}/runs/${entry.runId}`
        : `/threads/${entry.threadId}`;
      const answer = await call('GET', path);
      expect({ path, status: answer.status }).toEqual({ path, status: 200 });
    }
    const runs = acknowledged.filter((entry) => entry.runId);
    const statuses: string[] = [];
    await until('acknowledged runs did not finish', 40_000, async () => {
      statuses.length = 0;
      for (const entry of runs) {
        const answer = await call('GET', `/threads/${entry.threadId}/runs/${entry.runId}`);
        if (answer.status !== 200 || ['pending', 'running'].includes(String(answer.body?.status)))
          return undefined;
        statuses.push(String(answer.body?.status));
      }
      return true;
    });
    expect(statuses).toEqual(runs.map(() => 'success'));
  });
});
