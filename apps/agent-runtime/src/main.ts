import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { CANNOT_START_EXIT_CODE, cannotStartLine } from '#libs/config';
import { HttpDrain, keyDigests, OPENAPI_PUBLIC_PATHS, serverOptions, singleKey } from '#libs/http';
import { openProcessLogger, stopOnSignals } from '#libs/logging';
import type { Persistence } from '#libs/persistence';
import { metricsPublicPaths, observeEventLog } from '#libs/metrics';
import { awaitAssignment, dropPrivileges } from './assignment.js';
import { configureRuntimeHttp, serveInProcessClient } from './http/runtime-http.js';
import { InProcessGrants } from './http/in-process-grants.js';
import { stopWithParent } from './parent-process.js';
import { measureRunQueue } from './runs/run-metrics.js';
import {
  isSpare,
  loadRuntimeConfig,
  removeSecrets,
  type ApiKeys,
} from './runtime.config.js';
import { RuntimeModule } from './runtime.module.js';
import { poolSizesOf, runtimeParts } from './runtime-parts.js';
import { openApplication } from './open-application.js';
import { openRuntimePersistence } from './runtime-persistence.js';
import { loadCustomEncryption } from './encryption/custom-encryption-loader.js';
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
