import 'reflect-metadata';
import { hostname } from 'node:os';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { CANNOT_START_EXIT_CODE, cannotStartLine } from '#libs/config';
import { uuidv7 } from '#libs/event-store';
import { HttpDrain, keyDigests, OPENAPI_PUBLIC_PATHS, serverOptions, singleKey } from '#libs/http';
import { openProcessLogger, stopOnSignals, type Logger } from '#libs/logging';
import { splitConnectionBudget, type Persistence, type PoolSizes } from '#libs/persistence';
import { metricsPublicPaths, observeEventLog } from '#libs/metrics';
import { Application } from './application/application.js';
import { GraphsNotLoadedError } from './application/graphs-not-loaded-error.js';
import { awaitAssignment, dropPrivileges } from './assignment.js';
import { configureRuntimeHttp, serveInProcessClient } from './http/runtime-http.js';
import { InProcessGrants } from './http/in-process-grants.js';
import { ServedRoutes } from './http/served-routes.js';
import { stopWithParent } from './parent-process.js';
import { RunQueue } from './run-records/run-queue.js';
import { runHasFinished } from './run-records/run-progress.js';
import { RunObservers } from './run-records/run-observers.js';
import { measureRunQueue, RunMetrics } from './runs/run-metrics.js';
import { RunSignals } from './run-records/run-signals.js';
import { RunTraceReporter } from './runs/run-trace-reporter.js';
import {
  isSpare,
  loadRuntimeConfig,
  removeSecrets,
  type ApiKeys,
  type RuntimeConfig,
} from './runtime.config.js';
import type { CustomAuth } from './auth/custom-auth.js';
import { RuntimeModule, type RuntimeParts } from './runtime.module.js';
import { openRuntimePersistence } from './runtime-persistence.js';
import { loadCustomEncryption } from './encryption/custom-encryption-loader.js';
import { UiBundles } from './ui/ui-bundles.js';
import { cannotStartReason, whatToDoAbout } from './startup-failure.js';

const BODY_LIMIT_BYTES = 50 * 1024 * 1024;
const REQUEST_TIMEOUT_MS = 60_000;

async function main(): Promise<void> {
  await takeAssignmentIfSpare();
  const config = loadRuntimeConfig();
  const publicPaths = ['/ok', ...OPENAPI_PUBLIC_PATHS, ...metricsPublicPaths(process.env)];
  const { logger, nestLogger } = openProcessLogger('berth-runtime');
  // The application's graphs run in this process and can read its environment: the keys and the
  // tracing token are gone from it before they load.
  removeSecrets(process.env);
  const onError = (error: unknown): void => {
    logger.error(error instanceof Error ? error.message : String(error));
  };
  const customKeys = await loadCustomEncryption(config.graphConfigPath);
  const persistence = await openRuntimePersistence(
    config,
    onError,
    poolSizesOf(config),
    customKeys,
  );
  observePersistence(persistence);
  const { application, routes, customAuth, ui } = await openApplication(
    config,
    persistence,
    logger,
  );
  const app = await NestFactory.create<NestFastifyApplication>(
    RuntimeModule.forRoot(
      runtimeParts(config, persistence, { application, routes, customAuth, ui }),
    ),
    new FastifyAdapter(
      serverOptions({
        bodyLimitBytes: BODY_LIMIT_BYTES,
        requestTimeoutMs: REQUEST_TIMEOUT_MS,
        logger,
      }),
    ),
    // JSON bodies are parsed by registerJsonInput, not by Nest's default parser.
    { logger: nestLogger, bodyParser: false },
  );
  const drain = app.get(HttpDrain);
  const grants = new InProcessGrants();
  configureRuntimeHttp(app, {
    application,
    routes,
    customAuth,
    // `/info` answers anyone, as the JS server's does; what failed to load only with credentials.
    keys: { accepts: keyAcceptor(config.apiKeys), publicPaths, openPaths: ['/info'] },
    drain,
    grants,
    serveApi: config.serveApi,
  });
  // Starts the projections, the default assistants, the workers and the reloader, then serves.
  await app.listen(
    config.socket ? { path: config.socket } : { port: config.port, host: config.host },
  );
  serveInProcessClient(app, grants, ownUrl(config.host, config.port));
  const served = config.socket ?? `http://${config.host}:${config.port}`;
  logger.info(
    `Berth agent runtime for ${config.graphConfigPath} on ${served} ` +
      `(graphs: ${application.graphIds().join(', ')})`,
  );

  const stop = stopOnSignals(logger, async () => {
    // The drain first: new requests are answered 503 with Retry-After, open streams get their
    // last event (where to resume) and end. Then the reloader and the workers (runs go back to
    // the queue at once), the waits' answers, the HTTP server, then the projections and the run
    // observers (tracing reports what finished).
    await drain.begin();
    await app.close();
    await application.close();
    await persistence.close();
  });
  if (config.exitWithParent) {
    stopWithParent(() => {
      stop('stdin closed (parent gone)');
    });
  }
}

/** The metrics of the event log's projections and of the run queue. */
function observePersistence(persistence: Persistence): void {
  observeEventLog(persistence.eventStore, persistence.runners);
  measureRunQueue(persistence.pool);
}

/** The server's URL as this process reaches it: a wildcard address is reached on loopback. */
function ownUrl(host: string, port: number): string {
  if (host === '0.0.0.0' || host === '') return `http://127.0.0.1:${port}`;
  if (host === '::') return `http://[::1]:${port}`;
  return host.includes(':') ? `http://[${host}]:${port}` : `http://${host}:${port}`;
}

/**
 * Within `BERTH_DATABASE_CONNECTIONS`, the pools get what the LISTEN connections leave: the event
 * log's (one) and, in a process that executes runs, the run workers' (one).
 */
function poolSizesOf(config: RuntimeConfig): PoolSizes | undefined {
  if (config.databaseConnections === undefined) return undefined;
  return splitConnectionBudget(config.databaseConnections, config.runWorkers ? 2 : 1);
}

/** What the runtime's modules are given: what this process opened, and its settings. */
function runtimeParts(
  config: RuntimeConfig,
  persistence: Persistence,
  opened: Pick<RuntimeParts, 'application' | 'routes' | 'customAuth' | 'ui'>,
): RuntimeParts {
  const tracing = config.tracing ? new RunTraceReporter(config.tracing) : undefined;
  const workerId = `${hostname()}:${process.pid}:${uuidv7().slice(-8)}`;
  return {
    persistence,
    ...opened,
    queue: new RunQueue(persistence.pool, (runId) => runHasFinished(persistence.eventStore, runId)),
    signals: new RunSignals(),
    runObserver: new RunObservers(tracing ? [new RunMetrics(), tracing] : [new RunMetrics()]),
    runWorkers: config.runWorkers
      ? {
          workerId,
          concurrency: config.workerConcurrency,
          leaseSeconds: config.leaseSeconds,
          maxAttempts: config.maxAttempts,
          defaultTimeoutSeconds: config.runTimeoutSeconds,
          connectionString: persistence.database.url,
        }
      : null,
    reloadOnChange: config.reloadOnChange,
    threadSweepSeconds: config.threadSweepSeconds,
    storeSweepSeconds: config.storeSweepSeconds,
    cronPollSeconds: config.cronPollSeconds,
    cronClockAheadSeconds: config.cronClockAheadSeconds,
  };
}

/**
 * A spare is started ahead of need with every module above loaded: the rest of the environment
 * (the application, its port, its secrets) arrives on stdin when a deployment takes it.
 */
async function takeAssignmentIfSpare(): Promise<void> {
  if (!isSpare()) return;
  const assignment = await awaitAssignment(process.stdin);
  if (!assignment) process.exit(0);
  if (assignment.identity) dropPrivileges(assignment.identity);
  Object.assign(process.env, assignment.env);
}

/**
 * The application's graphs, routes and Auth handler, with what failed to load said; its UI
 * bundles are being made meanwhile (what fails is said once they are done).
 */
async function openApplication(
  config: RuntimeConfig,
  persistence: Persistence,
  logger: Logger,
): Promise<{
  application: Application;
  routes: ServedRoutes;
  customAuth: CustomAuth | undefined;
  ui: UiBundles;
}> {
  const application = await Application.open(
    config.graphConfigPath,
    persistence.eventStore,
    process.env,
  );
  for (const warning of application.config.warnings) {
    logger.warn(`${application.config.configFile}: ${warning}`);
  }
  for (const [graphId, reason] of application.failedGraphs()) {
    logger.error(`graph "${graphId}" is not served: ${reason}`);
  }
  const failed = application.failedGraphs();
  if (config.everyGraphRequired && failed.size > 0) {
    await application.close();
    throw new GraphsNotLoadedError(application.config.configFile, failed);
  }
  const routes = new ServedRoutes(application);
  const customRoutes = await routes.load();
  if (typeof customRoutes === 'string') logger.error(customRoutes);
  const customAuth = await application.customAuth();
  const ui = new UiBundles();
  void ui.load(application.config.ui, application.config.dir).then((problems) => {
    for (const problem of problems) logger.error(problem);
  });
  return { application, routes, customAuth, ui };
}

function keyAcceptor(keys: ApiKeys): (presented: string) => boolean {
  return keys.kind === 'key' ? singleKey(keys.key) : keyDigests(keys.digests);
}

main().catch((error: unknown) => {
  const whatToDo = whatToDoAbout(error, process.env);
  console.error(whatToDo ?? (error instanceof Error ? error.message : error));
  // A control plane started it: it reads why from this line (the revision's status message).
  if (isSpare()) console.error(cannotStartLine(cannotStartReason(error, whatToDo)));
  process.exit(whatToDo === undefined ? 1 : CANNOT_START_EXIT_CODE);
});
