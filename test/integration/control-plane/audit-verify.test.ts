import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import pg from 'pg';
import {
  OTHER_TENANT_KEY,
  startControlPlane,
  TEST_API_KEY,
  type ControlPlaneProcess,
} from '../../support/control-plane-process.js';
import { eventually } from './api-audit.js';

jest.setTimeout(60_000);

const CLI = resolve('dist/apps/cli/src/main.js');
const HEAD = /^\d+:[0-9a-f]{64}$/;

interface Answer {
  verified: boolean;
  events: number;
  head?: string;
  pending?: number;
  break?: { kind: string; position: number; detail: string; event_id?: string };
  published_head?: string;
  summary: string;
}

interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

describe('GET /v2/audit/verify and berth audit verify', () => {
  let cp: ControlPlaneProcess;
  let pool: pg.Pool;

  /** The built CLI against this control plane, with nothing of the machine's Berth leaking in. */
  const berth = (...args: string[]): Promise<CliResult> => {
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(process.env)) {
      if (value !== undefined && !name.startsWith('BERTH_') && name !== 'DATABASE_URL')
        env[name] = value;
    }
    env.BERTH_HOST_URL = cp.url;
    env.BERTH_API_KEY = TEST_API_KEY;
    return new Promise((done) => {
      execFile(process.execPath, [CLI, 'audit', ...args], { env }, (error, stdout, stderr) => {
        done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
      });
    });
  };

  beforeAll(async () => {
    cp = await startControlPlane();
    pool = new pg.Pool({ connectionString: cp.databaseUrl, max: 2 });
    const created = await cp.api('POST', '/v2/listeners', {
      name: 'audit-listener',
      compute_type: 'cluster',
    });
    expect(created.status).toBe(201);
    await everyEventSealed();
  });

  afterAll(async () => {
    await pool.end();
    await cp.dispose();
  });

  /**
   * Until every event stored is sealed: the sealer takes only events that nothing still running
   * on the (shared) test server can precede, so another suite's transaction can hold it back.
   */
  async function everyEventSealed(): Promise<void> {
    await eventually('every event sealed', async () => {
      const { body } = await cp.api<Answer>('GET', '/v2/audit/verify');
      return body.verified && body.events > 0 && body.pending === 0 ? body : undefined;
    });
  }

  it('refuses a request without a key, and a malformed head, with a detail', async () => {
    const anonymous = await cp.api('GET', '/v2/audit/verify', undefined, null);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ detail: expect.any(String) });
    const malformed = await cp.api('GET', '/v2/audit/verify?head=12:nothex');
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({ detail: expect.stringContaining('position:hash') });
  });

  it("exports a deployment's events as JSON lines with their chain positions", async () => {
    const created = await cp.api<{ id: string }>('POST', '/v2/deployments', {
      name: 'audited',
      source: 'internal_source',
      source_revision_config: { graph_config_path: 'langgraph.json' },
    });
    expect(created.status).toBe(201);
    const deploymentId = created.body.id;
    await everyEventSealed();

    const result = await berth('export', '--deployment', 'audited', '--since', '2000-01-01');
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.length).toBeGreaterThan(0);
    const { rows } = await pool.query<{ position: string; hash: string }>(
      `select c.position, c.hash from es_chain c join es_events e using (event_id)
        where e.stream_id = $1 order by e.stream_position`,
      [`deployment-${deploymentId}`],
    );
    expect(lines.map((line) => [line.position, line.hash])).toEqual(
      rows.map((row) => [Number(row.position), row.hash]),
    );
    expect(lines[0]).toMatchObject({
      stream_id: `deployment-${deploymentId}`,
      stream_position: 0,
      data: expect.objectContaining({ name: 'audited' }),
    });

    const none = await berth('export', '--deployment', deploymentId, '--until', '2000-01-01');
    expect(none).toMatchObject({ code: 0, stdout: '' });
    const badTime = await cp.api(
      'GET',
      `/v2/audit/export?deployment_id=${deploymentId}&since=yesterday`,
    );
    expect(badTime.status).toBe(400);
    expect(badTime.body).toEqual({ detail: expect.stringContaining('ISO 8601') });
    const elsewhere = await cp.api(
      'GET',
      `/v2/audit/export?deployment_id=${deploymentId}`,
      undefined,
      OTHER_TENANT_KEY,
    );
    expect(elsewhere.status).toBe(404);
  });

  it('verifies the platform log, over HTTP and from the CLI, then finds an edit there', async () => {
    const { status, body } = await cp.api<Answer>('GET', '/v2/audit/verify');
    expect(status).toBe(200);
    expect(body).toMatchObject({ verified: true, head: expect.stringMatching(HEAD) });
    expect(body.events).toBeGreaterThan(0);
    expect(body.summary).toBe(
      `verified ${body.events} events up to position ${body.events}; head ${body.head}`,
    );
    const head = body.head ?? '';

    const againstHead = await cp.api<Answer>('GET', `/v2/audit/verify?head=${head}`);
    expect(againstHead.body).toMatchObject({ verified: true, published_head: head });

    const line = await berth('verify');
    expect(line).toMatchObject({ code: 0, stderr: '' });
    expect(line.stdout).toMatch(
      new RegExp(`^verified \\d+ events up to position \\d+; head \\d+:[0-9a-f]{64}\\n$`),
    );
    const json = await berth('verify', '--json', '--head', head);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ verified: true, published_head: head });

    const { rows } = await pool.query<{ event_id: string }>(
      'select event_id from es_chain where position = 1',
    );
    const first = rows[0]?.event_id;
    await pool.query(`update es_events set data = data || '{"forged": true}' where event_id = $1`, [
      first,
    ]);
    const broken = await cp.api<Answer>('GET', '/v2/audit/verify');
    expect(broken.body).toMatchObject({
      verified: false,
      events: 0,
      break: { kind: 'edited', position: 1, event_id: first },
    });
    const brokenLine = await berth('verify', '--head', head);
    expect(brokenLine.code).toBe(1);
    expect(brokenLine.stdout).toBe(
      `broken at position 1: edited (event ${first}): its type, data or metadata differ from ` +
        `what was sealed, against the published head at position ${head.split(':')[0]}\n`,
    );
  });

  it('answers bad usage with exit code 2', async () => {
    const result = await berth('verify', '--head', 'nonsense');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^berth: --head must be POSITION:HASH/);
  });
});
