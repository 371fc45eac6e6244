/**
 * Whether this process can reach its PostgreSQL server, as the errors of its queries and a short
 * probe tell: down from the first error that says the server is gone (refused or lost
 * connections, a server shutting down or recovering), up again once the probe answers. It is
 * said once when it goes down and once when it is back, however many requests fail meanwhile;
 * `GET /ok` answers 503 and the routes that need the database 503 with `Retry-After` meanwhile.
 */

/** SQLSTATEs of a server that went away or does not accept connections yet. */
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03']);
const UNAVAILABLE_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ENOTCONN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);
const UNAVAILABLE_MESSAGE =
  /ECONNREFUSED|ECONNRESET|Connection terminated|connection error and is not queryable|server closed the connection unexpectedly|terminating connection due to (administrator command|unexpected postmaster exit|crash of another server process)|the database system is (starting up|shutting down|in recovery mode|not yet accepting connections)|timeout exceeded when trying to connect|Client was closed and is not queryable/;

/** Whether an error (or a message) says the database server cannot be reached, rather than a query failing. */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (depth > 4 || error === null || error === undefined) return false;
  if (typeof error === 'string') return UNAVAILABLE_MESSAGE.test(error);
  if (typeof error !== 'object') return false;
  const { code, syscall, message, cause, driverError, errors } = error as {
    code?: unknown;
    syscall?: unknown;
    message?: unknown;
    cause?: unknown;
    driverError?: unknown;
    errors?: unknown;
  };
  if (typeof code === 'string') {
    // A socket's errno counts when a system call failed on it: a client that left mid-request
    // ('aborted', ECONNRESET without one) is no news of the database.
    const socketFailed = UNAVAILABLE_ERRNOS.has(code) && typeof syscall === 'string';
    if (socketFailed || UNAVAILABLE_STATES.has(code) || code.startsWith('08')) return true;
  }
  if (typeof message === 'string' && UNAVAILABLE_MESSAGE.test(message)) return true;
  if (Array.isArray(errors) && errors.some((inner) => isDatabaseUnavailable(inner, depth + 1))) {
    return true;
  }
  return isDatabaseUnavailable(cause, depth + 1) || isDatabaseUnavailable(driverError, depth + 1);
}

/** What a route answers while the database is down (503 with `Retry-After`). */
export class DatabaseUnavailableError extends Error {
  override readonly name = 'DatabaseUnavailableError';
  readonly code = 'database_unavailable';

  constructor() {
    super('the database is unavailable; retry later (GET /ok answers 200 again once it is back)');
  }
}

/** Seconds a client is told to wait before it tries again while the database is down. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

export type DatabaseState =
  | { readonly ok: true }
  | {
      readonly ok: false;
      /** Why it is thought down: the first error of the outage. */
      readonly error: string;
      readonly since: string;
      /** Errors seen since it went down (requests, pools, workers). */
      readonly failures: number;
    };

export interface DatabaseAvailabilityReports {
  readonly onDown: (state: Extract<DatabaseState, { ok: false }>) => void;
  readonly onUp: (outage: Extract<DatabaseState, { ok: false }>, downForMs: number) => void;
}

/** A `select 1` (or the like) on the process's database, rejecting when it cannot be reached. */
export type DatabaseProbe = () => Promise<void>;

const PROBE_INTERVAL_MS = 500;
const PROBE_TIMEOUT_MS = 1_500;
/** While the database is up, /ok probes it at most this often (its answer is kept meanwhile). */
const PROBE_REUSE_MS = 1_000;

export class DatabaseAvailability {
  private outage: { error: string; since: number; failures: number } | undefined;
  private probe: DatabaseProbe | undefined;
  private recoveryProbe: DatabaseProbe | undefined;
  private busy: (() => boolean) | undefined;
  private reports: DatabaseAvailabilityReports | undefined;
  private recovering: NodeJS.Timeout | undefined;
  private lastCheck: { at: number; result: Promise<DatabaseState> } | undefined;
  private reporting = false;

  /**
   * The probe that tells whether the database answers, the one that tells an outage is over (a
   * new connection: a pooled one may still reach a backend whose postmaster was killed, which
   * answers for a moment and proves nothing), when the pool is too busy for /ok to probe it, and
   * who hears of outages.
   */
  configure(options: {
    readonly probe: DatabaseProbe;
    readonly recoveryProbe?: DatabaseProbe;
    readonly busy?: () => boolean;
    readonly reports: DatabaseAvailabilityReports;
  }): void {
    this.probe = options.probe;
    this.recoveryProbe = options.recoveryProbe;
    this.busy = options.busy;
    this.reports = options.reports;
  }

  /** Forgets the probe (the pools it uses are closing), unless another took its place. */
  release(probe?: DatabaseProbe): void {
    if (probe && probe !== this.probe) return;
    this.probe = undefined;
    this.recoveryProbe = undefined;
    this.busy = undefined;
    clearTimeout(this.recovering);
    this.recovering = undefined;
  }

  get isDown(): boolean {
    return this.outage !== undefined;
  }

  state(): DatabaseState {
    const outage = this.outage;
    if (!outage) return { ok: true };
    return {
      ok: false,
      error: outage.error,
      since: new Date(outage.since).toISOString(),
      failures: outage.failures,
    };
  }

  /**
   * Takes note of an error: true when it says the database is unreachable (the outage is then
   * reported, the first time only, and the caller need not log it), false for any other error.
   */
  noticeFailure(error: unknown): boolean {
    // The report of the outage is itself logged as an error, not taken for one more failure.
    if (this.reporting || !isDatabaseUnavailable(error)) return false;
    if (this.outage) {
      this.outage.failures += 1;
      return true;
    }
    const message = error instanceof Error ? error.message : String(error);
    this.outage = { error: message, since: Date.now(), failures: 1 };
    this.lastCheck = undefined;
    const state = this.state();
    if (state.ok) return true;
    this.reporting = true;
    try {
      this.reports?.onDown(state);
    } finally {
      this.reporting = false;
    }
    this.scheduleRecoveryProbe();
    return true;
  }

  /** The database answered: an outage ends, said once. */
  noticeSuccess(): void {
    const outage = this.outage;
    if (!outage) return;
    const state = this.state();
    this.outage = undefined;
    clearTimeout(this.recovering);
    this.recovering = undefined;
    if (!state.ok) this.reports?.onUp(state, Date.now() - outage.since);
  }

  /**
   * The state for `GET /ok`: down at once while an outage is known; otherwise a short probe
   * (never longer than its timeout, and at most one a second) tells.
   */
  async check(): Promise<DatabaseState> {
    if (this.outage || !this.probe || this.busy?.()) return this.state();
    const now = Date.now();
    if (!this.lastCheck || now - this.lastCheck.at > PROBE_REUSE_MS) {
      this.lastCheck = { at: now, result: this.runProbe() };
    }
    return this.lastCheck.result;
  }

  private async runProbe(): Promise<DatabaseState> {
    const probe = this.probe;
    if (!probe) return this.state();
    try {
      // Its success ends no outage: one that began while it ran is over only when a new
      // connection says so (the recovery probe).
      await withTimeout(probe(), PROBE_TIMEOUT_MS);
    } catch (error) {
      // Only a failure that says the server is gone is an outage; a probe that is merely slow
      // (a busy machine) or fails otherwise tells nothing, and the state stays as it was known.
      this.noticeFailure(error);
    }
    return this.state();
  }

  private scheduleRecoveryProbe(): void {
    if (this.recovering || !this.probe) return;
    this.recovering = setTimeout(() => {
      this.recovering = undefined;
      void this.probeRecovery();
    }, PROBE_INTERVAL_MS);
    this.recovering.unref();
  }

  private async probeRecovery(): Promise<void> {
    const probe = this.recoveryProbe ?? this.probe;
    if (!this.outage || !probe) return;
    try {
      await withTimeout(probe(), PROBE_TIMEOUT_MS);
      this.noticeSuccess();
    } catch {
      this.scheduleRecoveryProbe();
    }
  }
}

class ProbeTimeoutError extends Error {
  override readonly name = 'ProbeTimeoutError';
}

function withTimeout(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<void>((_resolve, reject) => {
      timer = setTimeout(() => {
        reject(new ProbeTimeoutError(`the database did not answer within ${ms} ms`));
      }, ms);
    }),
  ]).finally(() => {
    clearTimeout(timer);
  });
}

/** The process's database: one per process, shared by its pools, routes and health check. */
export const databaseAvailability = new DatabaseAvailability();
