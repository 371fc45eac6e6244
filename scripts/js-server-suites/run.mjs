#!/usr/bin/env node
// Runs the JS server's own API test suites (`@langchain/langgraph-api`: api.test.mts and
// auth.test.mts with their graphs) against `berth dev`, and prints what passed.
//
//   node scripts/js-server-suites/run.mjs <langgraphjs checkout> [--suite api|auth] [--work DIR]
//        [-t NAME_PATTERN]
//
// The suites stay in the checkout: they are copied into a work directory (default
// $TMPDIR/berth-js-suites), which gets their own dependencies from the npm registry. There they
// are pointed at a `berth dev` this script starts on the suites' graphs (their URLs hard-code
// localhost:2024 and :2025), and each `truncate()` they call (to wipe the server before a group
// of tests) starts that server again on a database of its own. The API suite's requests carry
// Berth's API key; the auth suite's do not, since a valid key acts as the platform and would
// pass every authorization check.
//
// Needs Berth built (`npm run build`). Uses DATABASE_URL's server when it is set (a database per
// server start, dropped afterwards), an embedded PostgreSQL per start otherwise.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes, createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';

/** The langgraphjs commit whose suites these counts refer to. */
export const PINNED_COMMIT = 'f8bdf16d4fe23a79e945ea5dc6f86bbf09abb77d';

/** The suites' dependencies, pinned; the graph packages at the versions Berth is tested with. */
const SUITE_DEPENDENCIES = {
  '@langchain/core': '1.4.0',
  '@langchain/langgraph': '1.7.3',
  '@langchain/langgraph-checkpoint': '1.2.2',
  '@langchain/langgraph-sdk': '1.15.0',
  hono: '4.13.19',
  jose: '6.2.18',
  postgres: '3.4.9',
  react: '19.3.1',
  'react-dom': '19.3.1',
  typescript: '5.9.3',
  vitest: '4.1.10',
  'wait-port': '1.1.0',
  zod: '4.6.7',
};

const SUITES = {
  api: { file: 'api.test.mts', config: 'langgraph.json', port: 2024, withKey: true },
  auth: { file: 'auth.test.mts', config: 'langgraph.auth.json', port: 2025, withKey: false },
};

const berthRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function parseCommandLine() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      suite: { type: 'string', multiple: true },
      work: { type: 'string' },
      t: { type: 'string', short: 't' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help || positionals.length !== 1) {
    console.log(
      readFileSync(fileURLToPath(import.meta.url), 'utf8')
        .split('\n')
        .slice(1, 17)
        .join('\n'),
    );
    process.exit(values.help ? 0 : 2);
  }
  const suites = values.suite ?? Object.keys(SUITES);
  for (const name of suites) {
    if (!(name in SUITES)) throw new Error(`Unknown suite ${name}: give api or auth`);
  }
  return {
    checkout: resolve(positionals[0]),
    suites,
    work: resolve(values.work ?? join(tmpdir(), 'berth-js-suites')),
    namePattern: values.t,
  };
}

function checkoutCommit(checkout) {
  const result = spawnSync('git', ['-C', checkout, 'rev-parse', 'HEAD'], { encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : undefined;
}

function freePort() {
  return new Promise((done, fail) => {
    const server = createNetServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
}

/** The suites' files, copied and pointed at this run's servers. */
function prepareWorkDirectory(checkout, work, ports) {
  const apiDir = join(checkout, 'libs/langgraph-api');
  const testsDir = join(work, 'tests');
  rmSync(testsDir, { recursive: true, force: true });
  mkdirSync(join(work, 'src/auth'), { recursive: true });
  cpSync(join(apiDir, 'tests'), testsDir, {
    recursive: true,
    filter: (source) => !source.includes('.langgraph_api') && !source.includes('node_modules'),
  });
  // auth.test.mts checks the JS server's own filter matcher against expectations: it is imported
  // from the checkout, not part of what runs against Berth.
  cpSync(join(apiDir, 'src/auth/index.mts'), join(work, 'src/auth/index.mts'));

  for (const [name, suite] of Object.entries(SUITES)) {
    const file = join(testsDir, suite.file);
    const text = readFileSync(file, 'utf8')
      .replaceAll(`localhost:${suite.port}`, `127.0.0.1:${ports[name]}`)
      .replaceAll('process.env.CI', 'process.env.JS_SERVER_SPAWN');
    writeFileSync(file, text);
  }
  const utils = join(testsDir, 'utils.mts');
  const utilsText = readFileSync(utils, 'utf8').replace(
    'export async function truncate(',
    'async function truncateTheJsServer(',
  );
  writeFileSync(
    utils,
    `${utilsText}
// Berth has no truncation endpoint: the run's harness starts the server afresh instead.
export async function truncate(apiUrl: string, _options: unknown) {
  void truncateTheJsServer;
  const response = await fetch(process.env.BERTH_SUITE_CONTROL + "/fresh", {
    method: "POST",
    body: apiUrl,
  });
  if (!response.ok) throw new Error("could not start a fresh server: " + (await response.text()));
}
`,
  );

  writeFileSync(
    join(work, 'vitest.config.mjs'),
    `export default {
  test: {
    hideSkippedTests: true,
    testTimeout: 30_000,
    hookTimeout: 180_000,
    fileParallelism: false,
    setupFiles: ["./berth-setup.mjs"],
  },
};
`,
  );
  writeFileSync(
    join(work, 'berth-setup.mjs'),
    `// Adds Berth's API key to the requests of the suites that run without the application's auth.
const keyed = JSON.parse(process.env.BERTH_KEYED_URLS ?? "[]");
const key = process.env.BERTH_SUITE_KEY;
const original = globalThis.fetch;
globalThis.fetch = (input, init) => {
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
  if (!keyed.some((base) => url.startsWith(base))) return original(input, init);
  const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
  if (!headers.has("x-api-key")) headers.set("x-api-key", key);
  return original(input, { ...init, headers });
};
`,
  );
}

function installDependencies(work) {
  const manifest = {
    name: 'berth-js-suites',
    private: true,
    type: 'module',
    dependencies: SUITE_DEPENDENCIES,
  };
  const text = `${JSON.stringify(manifest, null, 2)}\n`;
  const stamp = join(work, 'node_modules/.berth-stamp');
  const digest = createHash('sha256').update(text).digest('hex');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === digest) return;
  writeFileSync(join(work, 'package.json'), text);
  console.log(`Installing the suites' dependencies in ${work} ...`);
  const result = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: work,
    stdio: 'inherit',
  });
  if (result.status !== 0) throw new Error('npm install failed');
  writeFileSync(stamp, digest);
}

/** One suite's `berth dev`, started again on a fresh database whenever the suite truncates. */
class BerthDev {
  #process;
  #database;
  #starts = 0;

  constructor(name, suite, { work, port, key, databaseUrl }) {
    Object.assign(this, { name, suite, work, port, key, databaseUrl });
    this.log = join(work, `berth-${name}.log`);
    writeFileSync(this.log, '');
  }

  async fresh() {
    await this.stop();
    this.#starts += 1;
    const env = {
      ...process.env,
      BERTH_API_KEY: this.key,
      BERTH_LOG_LEVEL: process.env.BERTH_LOG_LEVEL ?? 'warn',
    };
    delete env.CI;
    if (this.databaseUrl) {
      this.#database = `berth_js_${this.name}_${process.pid}_${this.#starts}`;
      await withServer(this.databaseUrl, (client) =>
        client.query(`create database ${this.#database}`),
      );
      const url = new URL(this.databaseUrl);
      url.pathname = `/${this.#database}`;
      env.DATABASE_URL = url.href;
    } else {
      delete env.DATABASE_URL;
      env.BERTH_DATA_DIR = join(this.work, `.berth-${this.name}-${this.#starts}`);
      rmSync(env.BERTH_DATA_DIR, { recursive: true, force: true });
    }
    const graphs = join(this.work, 'tests/graphs');
    const args = [
      join(berthRoot, 'bin/berth.js'),
      'dev',
      graphs,
      '--config',
      join(graphs, this.suite.config),
    ];
    args.push('--port', String(this.port), '--no-reload');
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const append = (chunk) => writeFileSync(this.log, chunk, { flag: 'a' });
    child.stdout.on('data', append);
    child.stderr.on('data', append);
    this.#process = child;
    await new Promise((ready, fail) => {
      const onOutput = (chunk) => {
        if (chunk.toString().includes('Berth agent runtime:')) ready();
      };
      child.stdout.on('data', onOutput);
      child.once('exit', (code) =>
        fail(new Error(`berth dev (${this.name}) exited with ${code}: see ${this.log}`)),
      );
    });
  }

  async stop() {
    const child = this.#process;
    this.#process = undefined;
    if (child && child.exitCode === null) {
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      await exited;
    }
    if (this.#database) {
      const name = this.#database;
      this.#database = undefined;
      await withServer(this.databaseUrl, (client) =>
        client.query(`drop database if exists ${name} with (force)`),
      );
    }
  }
}

async function withServer(databaseUrl, work) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The harness's own endpoint, which the rewritten `truncate()` calls. */
function startControl(servers) {
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const target = servers.find((candidate) =>
        body.startsWith(`http://127.0.0.1:${candidate.port}`),
      );
      if (!target) {
        response.writeHead(404).end(`no server at ${body}`);
        return;
      }
      target.fresh().then(
        () => response.writeHead(204).end(),
        (error) => response.writeHead(500).end(String(error)),
      );
    });
  });
  return new Promise((done) => server.listen(0, '127.0.0.1', () => done(server)));
}

/** Runs vitest without blocking: this process answers the suites' truncations meanwhile. */
async function runVitest(work, files, env, namePattern) {
  const report = join(work, 'report.json');
  rmSync(report, { force: true });
  const args = [
    'vitest',
    'run',
    ...files,
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${report}`,
  ];
  if (namePattern) args.push('-t', namePattern);
  const child = spawn('npx', args, { cwd: work, env, stdio: 'inherit' });
  const status = await new Promise((done) => child.once('exit', done));
  if (!existsSync(report)) throw new Error(`vitest wrote no report (exit ${status})`);
  return JSON.parse(readFileSync(report, 'utf8'));
}

function summarize(report, suites) {
  for (const name of suites) {
    const file = report.testResults.find((result) => result.name.endsWith(SUITES[name].file));
    const tests = file?.assertionResults ?? [];
    const count = (status) => tests.filter((test) => test.status === status).length;
    const passed = count('passed');
    const failed = tests.filter((test) => test.status === 'failed');
    const skipped = tests.length - passed - failed.length;
    console.log(
      `\n${SUITES[name].file}: ${passed} passed, ${failed.length} failed, ${skipped} skipped, of ${tests.length}`,
    );
    for (const test of failed) {
      const reason = (test.failureMessages?.[0] ?? '').split('\n')[0].slice(0, 240);
      console.log(`  FAILED ${test.fullName}\n         ${reason}`);
    }
    if (file?.message) console.log(`  ${file.message.split('\n')[0]}`);
  }
}

async function main() {
  const options = parseCommandLine();
  const commit = checkoutCommit(options.checkout);
  if (commit !== PINNED_COMMIT) {
    console.warn(
      `The checkout is at ${commit ?? 'an unknown commit'}, not the pinned ${PINNED_COMMIT}.`,
    );
  }
  mkdirSync(options.work, { recursive: true });
  const key = randomBytes(24).toString('hex');
  const ports = { api: await freePort(), auth: await freePort() };
  prepareWorkDirectory(options.checkout, options.work, ports);
  installDependencies(options.work);

  const servers = options.suites.map(
    (name) =>
      new BerthDev(name, SUITES[name], {
        work: options.work,
        port: ports[name],
        key,
        databaseUrl: process.env.DATABASE_URL,
      }),
  );
  const control = await startControl(servers);
  const stopAll = () => Promise.all(servers.map((server) => server.stop()));
  process.once('SIGINT', () => void stopAll().then(() => process.exit(130)));
  try {
    const keyedUrls = servers
      .filter((server) => server.suite.withKey)
      .map((server) => `http://127.0.0.1:${server.port}`);
    const env = {
      ...process.env,
      BERTH_SUITE_CONTROL: `http://127.0.0.1:${control.address().port}`,
      BERTH_SUITE_KEY: key,
      BERTH_KEYED_URLS: JSON.stringify(keyedUrls),
    };
    delete env.CI;
    const files = options.suites.map((name) => `tests/${SUITES[name].file}`);
    const report = await runVitest(options.work, files, env, options.namePattern);
    summarize(report, options.suites);
    console.log(`\nServer logs: ${servers.map((server) => server.log).join(', ')}`);
  } finally {
    control.close();
    await stopAll();
  }
}

await main();
