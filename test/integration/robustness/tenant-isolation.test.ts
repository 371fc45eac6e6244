import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@langchain/langgraph-sdk';
import { packDirectory } from '#libs/source-archive';
import { exampleAppWithEnvGraph, type AppFixture } from '../../support/app-fixture.js';
import {
  OTHER_TENANT_KEY,
  startControlPlane,
  TEST_API_KEY,
  type ControlPlaneProcess,
} from '../../support/control-plane-process.js';
import { packExample, revisionLogs } from '../../support/deployment-flow.js';
import { startPrivateHttpsServer, type PrivateAuthority } from '../../support/private-authority.js';
import { deployAs, PLATFORM_ROOT, sealableOrSkipped } from '../../support/tenant-deploy.js';

jest.setTimeout(300_000);

const NOBODY = { uid: 65534, gid: 65534 };

/** What a tenant's code tries: read the platform's files, list other deployments, log in as others. */
const PROBE = (dataDir: string, otherDeploymentId: string, otherDatabase: string): string => `
const fs = require('node:fs');
const { createRequire } = require('node:module');
const pg = () => createRequire(${JSON.stringify(join(PLATFORM_ROOT, 'package.json'))})('pg');
const tryRead = (path) => { try { fs.readFileSync(path); return 'read'; } catch (e) { return e.code; } };
const tryList = (path) => { try { fs.readdirSync(path); return 'listed'; } catch (e) { return e.code; } };
async function tryLogin(change) {
  const url = new URL(process.env.DATABASE_URL);
  change(url);
  const client = new (pg().Client)({ connectionString: url.toString() });
  client.on('error', () => undefined);
  try { await client.connect(); return 'connected'; } catch (e) { return e.code || e.message; }
  finally { await client.end().catch(() => undefined); }
}
module.exports = async function probe() {
  const dataDir = ${JSON.stringify(dataDir)};
  const scratch = 'probe-' + Math.random().toString(36).slice(2);
  fs.writeFileSync('/tmp/' + scratch, 'scratch');
  return {
    uid: process.getuid(),
    umask: process.umask(),
    scratch,
    scratchMode: fs.statSync('/tmp/' + scratch).mode & 0o777,
    processes: fs.readdirSync('/proc').filter((entry) => /^\\d+$/.test(entry)).length,
    dataDirEntries: (() => { try { return fs.readdirSync(dataDir); } catch (e) { return e.code; } })(),
    tmpEntries: fs.readdirSync('/tmp'),
    secretsKey: tryRead(dataDir + '/secrets.key'),
    postgresPassword: tryRead(dataDir + '/postgres.password'),
    uploads: tryList(dataDir + '/uploads'),
    otherDeployment: tryList(dataDir + '/builds/deployments/${otherDeploymentId}'),
    ownDatabase: process.env.DATABASE_URL ? await tryLogin(() => undefined) : 'no DATABASE_URL',
    otherDatabase: process.env.DATABASE_URL
      ? await tryLogin((url) => { url.pathname = '/${otherDatabase}'; })
      : 'no DATABASE_URL',
    platformDatabase: process.env.DATABASE_URL
      ? await tryLogin((url) => { url.pathname = '/berth'; })
      : 'no DATABASE_URL',
    maintenanceDatabase: process.env.DATABASE_URL
      ? await tryLogin((url) => { url.pathname = '/postgres'; })
      : 'no DATABASE_URL',
    superuser: process.env.DATABASE_URL
      ? await tryLogin((url) => { url.username = 'postgres'; url.password = 'a-guess'; })
      : 'no DATABASE_URL',
  };
};
`;

const BUILD_SCRIPT = `require('./probe.cjs')().then((found) => console.log('PROBE ' + JSON.stringify(found)));`;

const PROBE_GRAPH = `import { createRequire } from 'node:module';
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';

const probe = createRequire(import.meta.url)('../probe.cjs');
const State = Annotation.Root({ found: Annotation<Record<string, unknown>> });
export const graph = new StateGraph(State)
  .addNode('probe', async () => ({ found: await probe() }))
  .addEdge(START, 'probe')
  .addEdge('probe', END)
  .compile();
`;

/**
 * In its jail a tenant's code finds the platform's files and other deployments absent, and of
 * the data directory only the way to its own directories; what it writes is its own alone.
 */
const JAILED = {
  umask: 0o077,
  scratchMode: 0o600,
  dataDirEntries: ['builds'],
  secretsKey: 'ENOENT',
  postgresPassword: 'ENOENT',
  uploads: 'ENOENT',
  otherDeployment: 'ENOENT',
};

const EXPECTED_DENIALS = {
  ...JAILED,
  ownDatabase: 'connected',
  // 42501: no CONNECT privilege on the database; 28P01: password authentication failed.
  otherDatabase: '42501',
  platformDatabase: '42501',
  maintenanceDatabase: '42501',
  superuser: '28P01',
};

/**
 * What a tenant's code answers from an HTTPS server only the machine's extra authorities sign:
 * one it starts on its jail's own loopback (the host's is not reached from a jail), with the
 * key and certificate beside it.
 */
const FETCH_PRIVATE = `
const fs = require('node:fs');
const https = require('node:https');
const { join } = require('node:path');
module.exports = () => new Promise((resolve) => {
  const server = https.createServer(
    { key: fs.readFileSync(join(__dirname, 'private-key.pem')), cert: fs.readFileSync(join(__dirname, 'private-cert.pem')) },
    (_request, response) => response.end('trusted'),
  );
  server.listen(0, '127.0.0.1', () => {
    https
      .get('https://127.0.0.1:' + server.address().port + '/', (response) => {
        let body = '';
        response.on('data', (chunk) => { body += chunk; });
        response.on('end', () => { server.close(); resolve(body); });
      })
      .on('error', (error) => { server.close(); resolve(error.code || error.message); });
  });
});
`;

const PRIVATE_GRAPH = `import { createRequire } from 'node:module';
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';

const fetchPrivate = createRequire(import.meta.url)('../fetch-private.cjs');
const State = Annotation.Root({ answer: Annotation<string> });
export const graph = new StateGraph(State)
  .addNode('fetch', async () => ({ answer: await fetchPrivate() }))
  .addEdge(START, 'fetch')
  .addEdge('fetch', END)
  .compile();
`;

const describeWhereSealable = await sealableOrSkipped(describe, 'Tenant isolation tests');

describeWhereSealable(
  'tenants sealed from each other on an embedded PostgreSQL, Berth running as root',
  () => {
    let cp: ControlPlaneProcess;
    let app: AppFixture;
    let authority: PrivateAuthority;

    beforeAll(async () => {
      authority = await startPrivateHttpsServer();
      cp = await startControlPlane({
        embeddedDatabase: true,
        env: {
          BERTH_ALLOW_UNSEALED_TENANTS: 'false',
          BERTH_ALLOW_LOCAL_SOURCES: 'false',
          NODE_EXTRA_CA_CERTS: authority.bundle,
        },
      });
      app = await exampleAppWithEnvGraph();
    });

    afterAll(async () => {
      await cp.dispose();
      await app.remove();
      await authority.close();
    });

    it('starts sealed and accepts both tenants', async () => {
      expect(cp.output()).not.toContain('not sealed');
      expect((await cp.api('GET', '/v2/deployments', undefined, OTHER_TENANT_KEY)).status).toBe(
        200,
      );
    });

    it("keeps a tenant's build and runtime from the platform's files, other deployments and other databases", async () => {
      const other = await deployAs(cp, OTHER_TENANT_KEY, 'other-tenant-app', await packExample());
      expect(other.revision.status).toBe('DEPLOYED');

      const otherDatabase = `berth_deployment_${other.deployment.id.replace(/-/g, '')}`;
      await writeFile(
        join(app.dir, 'probe.cjs'),
        PROBE(cp.dataDir, other.deployment.id, otherDatabase),
      );
      await writeFile(join(app.dir, 'build-probe.cjs'), BUILD_SCRIPT);
      await writeFile(join(app.dir, 'src', 'probe.ts'), PROBE_GRAPH);
      const config = JSON.parse(await readFile(join(app.dir, 'langgraph.json'), 'utf8')) as {
        graphs: Record<string, string>;
      };
      config.graphs.probe = './src/probe.ts:graph';
      await writeFile(join(app.dir, 'langgraph.json'), JSON.stringify(config));

      const { archive } = await packDirectory(app.dir);
      const mine = await deployAs(cp, TEST_API_KEY, 'probing-app', archive, {
        build_command: 'node build-probe.cjs',
      });
      expect(mine.revision.status).toBe('DEPLOYED');

      const buildLine = (
        await revisionLogs(cp, mine.deployment.id, mine.revision.id, 'build')
      ).find((line) => line.startsWith('PROBE '));
      const inBuild = JSON.parse(buildLine?.slice('PROBE '.length) ?? '{}') as Record<
        string,
        unknown
      >;
      // The build has no database of its own to use: it only gets the platform's files refused.
      expect(inBuild).toMatchObject({ ...JAILED, ownDatabase: 'no DATABASE_URL' });
      expect(inBuild.uid).toBeGreaterThanOrEqual(600_000);
      // A PID namespace of its own: the shell, node and the jail's init, not the host's processes.
      expect(inBuild.processes).toBeLessThan(10);

      const client = new Client({
        apiUrl: mine.deployment.source_config.custom_url ?? '',
        apiKey: TEST_API_KEY,
      });
      const { found } = (await client.runs.wait(null, 'probe', { input: {} })) as {
        found: Record<string, unknown>;
      };
      expect(found).toMatchObject(EXPECTED_DENIALS);
      expect(found.uid).toBe(inBuild.uid);
      expect(found.processes).toBeLessThan(10);
      // Its /tmp is its own: the build's scratch file is not there.
      expect(found.tmpEntries).not.toContain(inBuild.scratch);
    });

    it("lets a tenant's build and runtime trust the authorities the machine adds (NODE_EXTRA_CA_CERTS), wherever that file is", async () => {
      await writeFile(join(app.dir, 'fetch-private.cjs'), FETCH_PRIVATE);
      await writeFile(join(app.dir, 'private-key.pem'), authority.keyPem);
      await writeFile(join(app.dir, 'private-cert.pem'), authority.certPem);
      await writeFile(
        join(app.dir, 'build-private.cjs'),
        `require('./fetch-private.cjs')().then((answer) => console.log('PRIVATE ' + answer));`,
      );
      await writeFile(join(app.dir, 'src', 'private.ts'), PRIVATE_GRAPH);
      const config = JSON.parse(await readFile(join(app.dir, 'langgraph.json'), 'utf8')) as {
        graphs: Record<string, string>;
      };
      config.graphs.private = './src/private.ts:graph';
      await writeFile(join(app.dir, 'langgraph.json'), JSON.stringify(config));

      const { archive } = await packDirectory(app.dir);
      const deployed = await deployAs(cp, TEST_API_KEY, 'private-authority-app', archive, {
        build_command: 'node build-private.cjs',
      });
      expect(deployed.revision.status).toBe('DEPLOYED');
      const buildLogs = await revisionLogs(
        cp,
        deployed.deployment.id,
        deployed.revision.id,
        'build',
      );
      expect(buildLogs).toContain('PRIVATE trusted');

      const client = new Client({
        apiUrl: deployed.deployment.source_config.custom_url ?? '',
        apiKey: TEST_API_KEY,
      });
      const { answer } = (await client.runs.wait(null, 'private', { input: {} })) as {
        answer: string;
      };
      expect(answer).toBe('trusted');
    });

    it('refuses local git sources unless the operator allows them', async () => {
      const integration = await cp.api<{ integration_id: string }>(
        'GET',
        '/v1/integrations/git_host/install',
      );
      for (const repoUrl of ['/srv/repos/app', 'file:///srv/repos/app', './app']) {
        const created = await cp.api<{ detail: string }>('POST', '/v2/deployments', {
          name: `local-${Date.now()}`,
          source: 'git_host',
          source_config: { integration_id: integration.body.integration_id, repo_url: repoUrl },
          source_revision_config: { repo_ref: 'main', graph_config_path: 'langgraph.json' },
        });
        expect(created.status).toBe(400);
        expect(created.body.detail).toContain('BERTH_ALLOW_LOCAL_SOURCES');
      }
    });
  },
);

// It runs Berth as nobody, which needs root to arrange and Berth readable by others.
describeWhereSealable('a Berth that cannot drop privileges', () => {
  let cp: ControlPlaneProcess;

  beforeAll(async () => {
    cp = await startControlPlane({
      runAs: NOBODY,
      env: { BERTH_ALLOW_UNSEALED_TENANTS: 'false' },
    });
  });

  afterAll(async () => {
    await cp.dispose();
  });

  it("says so once at start and refuses a second tenant's keys, with the way to accept them", async () => {
    const warnings = cp.output().match(/Tenants are not sealed from each other here/g) ?? [];
    expect(warnings).toHaveLength(1);
    expect(cp.output()).toContain('Berth does not run as root');
    expect((await cp.api('GET', '/v2/deployments')).status).toBe(200);
    const refused = await cp.api<{ detail: string }>(
      'GET',
      '/v2/deployments',
      undefined,
      OTHER_TENANT_KEY,
    );
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toContain('BERTH_ALLOW_UNSEALED_TENANTS=true');
  });
});
