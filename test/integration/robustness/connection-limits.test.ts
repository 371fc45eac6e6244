import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Client } from '@langchain/langgraph-sdk';
import pg from 'pg';
import { packDirectory } from '#libs/source-archive';
import { exampleAppWithEnvGraph, type AppFixture } from '../../support/app-fixture.js';
import {
  OTHER_TENANT_KEY,
  startControlPlane,
  TEST_API_KEY,
  type ControlPlaneProcess,
} from '../../support/control-plane-process.js';
import { packExample, type Deployment } from '../../support/deployment-flow.js';
import { deployAs } from '../../support/tenant-deploy.js';
import { testServerUrl } from '../../support/test-server.js';

jest.setTimeout(600_000);

/** Each deployment's role: small, so that three fill what the test leaves deployments. */
const PER_DEPLOYMENT = 10;
const DEPLOYMENTS_THAT_FIT = 3;
const TENANT_QUOTA = 2;
const ROLE_PREFIX = 'berth_deployment_';

/**
 * A graph that logs in with its runtime's DATABASE_URL (its deployment's role) as many times as
 * it can, and holds the connections until asked to let them go.
 */
const HOG_GRAPH = `import { createRequire } from 'node:module';
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';

const pg = createRequire(${JSON.stringify(resolve('package.json'))})('pg');
const held: { end(): Promise<void>; query(sql: string): Promise<{ rows: { n: number }[] }> }[] = [];
const State = Annotation.Root({
  action: Annotation<string>,
  result: Annotation<Record<string, unknown>>,
});

async function hog() {
  let refusal: string | null = null;
  for (let i = 0; i < 100 && !refusal; i++) {
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    client.on('error', () => undefined);
    try {
      await client.connect();
      held.push(client);
    } catch (error) {
      const failure = error as { code?: string; message: string };
      refusal = failure.code ?? failure.message;
    }
  }
  const opened = held.length;
  const { rows } = await held[0].query(
    'select count(*)::int as n from pg_stat_activity where usename = current_user',
  );
  // Two go back, so that the runtime can record this run.
  for (const client of held.splice(-2)) await client.end();
  return { opened, refusal, atPeak: rows[0].n, holding: held.length };
}

export const graph = new StateGraph(State)
  .addNode('hog', async (state) => {
    if (state.action !== 'release') return { result: await hog() };
    const released = held.length;
    await Promise.all(held.splice(0).map((client) => client.end().catch(() => undefined)));
    return { result: { released } };
  })
  .addEdge(START, 'hog')
  .addEdge('hog', END)
  .compile();
`;

async function serverQuery<T extends pg.QueryResultRow>(sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: testServerUrl() });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

async function create(
  cp: ControlPlaneProcess,
  key: string,
  name: string,
): Promise<{ status: number; body: Deployment & { detail?: string } }> {
  return cp.api<Deployment & { detail?: string }>(
    'POST',
    '/v2/deployments',
    {
      name,
      source: 'internal_source',
      source_config: { deployment_type: 'dev' },
      source_revision_config: { graph_config_path: 'langgraph.json' },
    },
    key,
  );
}

const roleOf = (deployment: Deployment): string =>
  `${ROLE_PREFIX}${deployment.id.replace(/-/g, '')}`;

async function answersARun(deployment: Deployment, key: string): Promise<void> {
  const client = new Client({ apiUrl: deployment.source_config.custom_url ?? '', apiKey: key });
  const values = (await client.runs.wait(null, 'agent', {
    input: { messages: [{ role: 'user', content: 'Weather in Oslo?' }] },
  })) as { messages?: unknown[] };
  expect(values.messages?.length).toBeGreaterThan(1);
}

describe('database connections: one deployment cannot take the others’', () => {
  let cp: ControlPlaneProcess;
  let app: AppFixture;
  let capacity = 0;

  beforeAll(async () => {
    // The server's own figures, and what other roles hold on it: the platform's reserve is
    // chosen so that exactly three deployments of 10 fit.
    const [server] = await serverQuery<{ max: number; reserved: number; others: number }>(
      `select current_setting('max_connections')::int as max,
              current_setting('superuser_reserved_connections')::int
                + coalesce(current_setting('reserved_connections', true)::int, 0) as reserved,
              (select coalesce(sum(greatest(rolconnlimit, 0)), 0)::int from pg_roles
                where starts_with(rolname, '${ROLE_PREFIX}')) as others`,
    );
    if (!server) throw new Error('No answer from the test server');
    capacity = PER_DEPLOYMENT * DEPLOYMENTS_THAT_FIT;
    const reserve = server.max - server.reserved - server.others - capacity;
    cp = await startControlPlane({
      env: {
        BERTH_DEPLOYMENT_DB_CONNECTIONS: String(PER_DEPLOYMENT),
        BERTH_DB_RESERVED_CONNECTIONS: String(reserve),
        BERTH_TENANT_MAX_DEPLOYMENTS: String(TENANT_QUOTA),
      },
    });
    app = await exampleAppWithEnvGraph();
    await writeFile(join(app.dir, 'src', 'hog.ts'), HOG_GRAPH);
    const config = JSON.parse(await readFile(join(app.dir, 'langgraph.json'), 'utf8')) as {
      graphs: Record<string, string>;
    };
    config.graphs.hog = './src/hog.ts:graph';
    await writeFile(join(app.dir, 'langgraph.json'), JSON.stringify(config));
  });

  afterAll(async () => {
    await cp.dispose();
    await app.remove();
  });

  it('caps a greedy deployment at its role’s limit while the others serve, start, or are refused alone', async () => {
    const example = await packExample();
    const { archive: hogArchive } = await packDirectory(app.dir);
    const [hog, steady] = await Promise.all([
      deployAs(cp, TEST_API_KEY, 'greedy', hogArchive),
      deployAs(cp, TEST_API_KEY, 'steady', example),
    ]);
    expect(hog.revision.status).toBe('DEPLOYED');
    expect(steady.revision.status).toBe('DEPLOYED');
    const roles = await serverQuery<{ rolname: string; rolconnlimit: number }>(
      `select rolname, rolconnlimit from pg_roles where starts_with(rolname, '${ROLE_PREFIX}')`,
    );
    expect(roles.find((role) => role.rolname === roleOf(hog.deployment))?.rolconnlimit).toBe(
      PER_DEPLOYMENT,
    );

    // The greedy graph opens what it can: its role's limit stops it, not the server's.
    const greedy = new Client({
      apiUrl: hog.deployment.source_config.custom_url ?? '',
      apiKey: TEST_API_KEY,
    });
    const { result } = (await greedy.runs.wait(null, 'hog', { input: { action: 'hold' } })) as {
      result: { opened: number; refusal: string | null; atPeak: number; holding: number };
    };
    // 53300: too many connections for role.
    expect(result.refusal).toBe('53300');
    expect(result.atPeak).toBeLessThanOrEqual(PER_DEPLOYMENT);
    expect(result.holding).toBeGreaterThan(0);

    try {
      // The other deployment's runtime keeps answering runs, within its half of its role.
      await answersARun(steady.deployment, TEST_API_KEY);
      await answersARun(steady.deployment, TEST_API_KEY);
      const [steadyUse] = await serverQuery<{ n: number }>(
        `select count(*)::int as n from pg_stat_activity where usename = '${roleOf(steady.deployment)}'`,
      );
      expect(steadyUse?.n).toBeLessThanOrEqual(PER_DEPLOYMENT / 2);

      // A tenant at its quota is refused one more, and told why; the other tenant is not.
      const third = await create(cp, TEST_API_KEY, 'one-too-many');
      expect(third.status).toBe(409);
      expect(third.body.detail).toContain('BERTH_TENANT_MAX_DEPLOYMENTS');

      // A new deployment still starts, and answers, while the greedy one holds its connections.
      const newcomer = await deployAs(cp, OTHER_TENANT_KEY, 'newcomer', example);
      expect(newcomer.revision.status).toBe('DEPLOYED');
      await answersARun(newcomer.deployment, OTHER_TENANT_KEY);

      // The server is now full for deployments: the next one is refused with the reason, and
      // the ones that run are untouched.
      const refused = await deployAs(cp, OTHER_TENANT_KEY, 'no-room', example);
      expect(refused.revision.status).toBe('DEPLOY_FAILED');
      expect(refused.revision.status_message).toContain('BERTH_DB_RESERVED_CONNECTIONS');
      expect(refused.revision.status_message).toContain('max_connections');
      await answersARun(steady.deployment, TEST_API_KEY);
      await answersARun(newcomer.deployment, OTHER_TENANT_KEY);

      const [granted] = await serverQuery<{ total: number }>(
        `select coalesce(sum(rolconnlimit), 0)::int as total from pg_roles
          where starts_with(rolname, '${ROLE_PREFIX}')`,
      );
      expect(granted?.total).toBeLessThanOrEqual(capacity);
    } finally {
      await greedy.runs.wait(null, 'hog', { input: { action: 'release' } });
    }
  });
});
