import { afterEach, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import {
  EMBEDDED_AUTHENTICATION_TIMEOUT_S,
  EMBEDDED_SUPERUSER_RESERVED_CONNECTIONS,
  startEmbeddedPostgres,
  type EmbeddedPostgresServer,
} from '../../../libs/database/src/embedded-postgres.server.js';

const TIMEOUT_MS = 120_000;

describe('startEmbeddedPostgres', () => {
  const servers: EmbeddedPostgresServer[] = [];
  const dirs: string[] = [];

  async function freshDataDir(): Promise<string> {
    const dir = await mkdtemp(path.join(tmpdir(), 'berth-embedded-pg-'));
    dirs.push(dir);
    return dir;
  }

  async function start(dataDir: string, port?: number): Promise<EmbeddedPostgresServer> {
    const server = await startEmbeddedPostgres(
      port === undefined ? { dataDir } : { dataDir, port },
    );
    servers.push(server);
    return server;
  }

  async function query<R extends pg.QueryResultRow>(url: string, sql: string): Promise<R[]> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query<R>(sql)).rows;
    } finally {
      await client.end();
    }
  }

  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.stop()));
    await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  }, TIMEOUT_MS);

  it(
    'starts in a fresh directory and answers queries',
    async () => {
      const server = await start(await freshDataDir());

      expect(server.url).toMatch(/^postgres:\/\/postgres:[\w-]+@127\.0\.0\.1:\d+\/postgres$/);
      expect(await query<{ one: number }>(server.url, 'select 1 as one')).toEqual([{ one: 1 }]);
    },
    TIMEOUT_MS,
  );

  it(
    'closes a connection that never answers the password challenge within seconds',
    async () => {
      const server = await start(await freshDataDir());
      const socket = net.connect(Number(new URL(server.url).port), '127.0.0.1');
      await once(socket, 'connect');
      const parameters = Buffer.from('user\0postgres\0database\0postgres\0\0');
      const startup = Buffer.alloc(8);
      startup.writeInt32BE(8 + parameters.length, 0);
      startup.writeInt32BE(196_608, 4); // protocol 3.0
      socket.write(Buffer.concat([startup, parameters]));
      const [challenge] = (await once(socket, 'data')) as [Buffer];
      expect(String.fromCharCode(challenge[0] ?? 0)).toBe('R');
      socket.resume();
      // Silent from here, as a flood's connections are: the server ends it, long before its
      // default 60 s.
      const openedAt = Date.now();
      await once(socket, 'close');
      expect(Date.now() - openedAt).toBeLessThan(30_000);
      expect(
        await query<{ authentication_timeout: string }>(server.url, 'show authentication_timeout'),
      ).toEqual([{ authentication_timeout: `${EMBEDDED_AUTHENTICATION_TIMEOUT_S}s` }]);
      // Slots the platform (the superuser) still logs in on when every other is taken.
      expect(
        await query<{ superuser_reserved_connections: string }>(
          server.url,
          'show superuser_reserved_connections',
        ),
      ).toEqual([
        { superuser_reserved_connections: String(EMBEDDED_SUPERUSER_RESERVED_CONNECTIONS) },
      ]);
    },
    TIMEOUT_MS,
  );

  it(
    'asks for the password (scram), kept in the data directory for its owner only',
    async () => {
      const dataDir = await freshDataDir();
      const server = await start(dataDir);
      const password = (await readFile(path.join(dataDir, 'postgres.password'), 'utf8')).trim();
      expect(server.url).toContain(`:${password}@`);
      expect((await stat(path.join(dataDir, 'postgres.password'))).mode & 0o777).toBe(0o600);

      const wrong = new URL(server.url);
      wrong.password = 'not-the-password';
      await expect(query(wrong.toString(), 'select 1')).rejects.toMatchObject({ code: '28P01' });
    },
    TIMEOUT_MS,
  );

  it(
    'switches a cluster made with trust authentication to passwords at its next start',
    async () => {
      const dataDir = await freshDataDir();
      const first = await start(dataDir);
      const hbaFile = path.join(dataDir, 'postgres', 'pg_hba.conf');
      const hba = await readFile(hbaFile, 'utf8');
      await writeFile(hbaFile, hba.replace(/scram-sha-256/g, 'trust'));
      await query(first.url, 'select pg_reload_conf()');
      const anyPassword = new URL(first.url);
      anyPassword.password = 'anything';
      expect(await query(anyPassword.toString(), 'select 1 as one')).toEqual([{ one: 1 }]);
      await first.stop();

      const second = await start(dataDir);

      expect(await readFile(hbaFile, 'utf8')).not.toMatch(/\strust\b/);
      await expect(
        query(anyPassword.toString().replace(`:${first.port}/`, `:${second.port}/`), 'select 1'),
      ).rejects.toMatchObject({ code: '28P01' });
      expect(await query<{ one: number }>(second.url, 'select 1 as one')).toEqual([{ one: 1 }]);
    },
    TIMEOUT_MS,
  );

  it(
    'keeps its data across a restart on the same directory',
    async () => {
      const dataDir = await freshDataDir();
      const first = await start(dataDir);
      await query(first.url, 'create table kept (id integer primary key)');
      await query(first.url, 'insert into kept values (42)');
      await first.stop();
      await first.stop(); // idempotent

      const second = await start(dataDir);

      expect(await query<{ id: number }>(second.url, 'select id from kept')).toEqual([{ id: 42 }]);
    },
    TIMEOUT_MS,
  );

  it(
    'recovers from a stale postmaster.pid left by a killed run',
    async () => {
      const dataDir = await freshDataDir();
      const first = await start(dataDir);
      await first.stop();
      const clusterDir = path.join(dataDir, 'postgres');
      await writeFile(
        path.join(clusterDir, 'postmaster.pid'),
        `999999\n${clusterDir}\n1700000000\n54329\n\n127.0.0.1\n  0 0\nready   \n`,
      );

      const second = await start(dataDir);

      expect(await query<{ one: number }>(second.url, 'select 1 as one')).toEqual([{ one: 1 }]);
    },
    TIMEOUT_MS,
  );

  it(
    'refuses a data directory that a running server already uses',
    async () => {
      const dataDir = await freshDataDir();
      await start(dataDir);

      await expect(startEmbeddedPostgres({ dataDir })).rejects.toThrow(
        /Another Berth .*is running/,
      );
    },
    TIMEOUT_MS,
  );

  it(
    'picks a free port when the requested one is taken',
    async () => {
      const blocker = net.createServer();
      await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
      const taken = (blocker.address() as net.AddressInfo).port;
      try {
        const server = await start(await freshDataDir(), taken);

        expect(server.port).not.toBe(taken);
        expect(server.url).toMatch(new RegExp(`@127\\.0\\.0\\.1:${server.port}/postgres$`));
        expect(await query<{ one: number }>(server.url, 'select 1 as one')).toEqual([{ one: 1 }]);
      } finally {
        await new Promise((resolve) => blocker.close(resolve));
      }
    },
    TIMEOUT_MS,
  );

  it(
    'takes over from a Berth killed with SIGKILL, stopping the postgres it orphaned',
    async () => {
      const dataDir = await freshDataDir();
      const killed = spawn(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `import { startEmbeddedPostgres } from ${JSON.stringify(path.resolve('dist/libs/database/src/index.js'))};
           const server = await startEmbeddedPostgres({ dataDir: process.argv[1] });
           console.log(server.url);
           setInterval(() => {}, 1000);`,
          dataDir,
        ],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      const [firstLine] = (await once(killed.stdout, 'data')) as [Buffer];
      const orphanUrl = firstLine.toString().trim();
      await query(orphanUrl, 'create table survived (id integer)');
      killed.kill('SIGKILL');
      await once(killed, 'exit');

      const server = await start(dataDir);

      expect(await query(server.url, 'select * from survived')).toEqual([]);
    },
    TIMEOUT_MS,
  );
});
