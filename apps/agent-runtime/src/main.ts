import { BERTH_VERSION } from '#libs/config';
import 'reflect-metadata';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { uuidv7 } from '#libs/event-store';
import { openProcessLogger } from '#libs/logging';
import {
  buildOpenApiDocument,
  createValidationPipe,
  OPENAPI_PUBLIC_PATHS,
  serveOpenApi,
  keyDigests,
  ProblemFilter,
  registerJsonInput,
  serverOptions,
  requireApiKey,
  singleKey,
} from '#libs/http';
import { Application } from './application/application.js';
import { watchSources } from './application/source-watcher.js';
import { AssistantsService } from './assistants/assistants.service.js';
import { ReadModelFreshness } from '#libs/persistence';
import { RunExecutor } from './runs/run-executor.js';
import { runHasFinished, RunObservers } from './runs/run-log.js';
import { measureRunQueue, RunMetrics } from './runs/run-metrics.js';
import { metricsPublicPaths, observeEventLog, observeRequests } from '#libs/metrics';
import { RunQueue } from './run-records/run-queue.js';
import { RunSignals } from './runs/run-signals.js';
import { RunTraceReporter } from './runs/run-trace-reporter.js';
import { RunWorkerPool } from './runs/run-worker-pool.js';
import { isSpare, loadRuntimeConfig, removeSecrets, type ApiKeys } from './runtime.config.js';
import { awaitAssignment, dropPrivileges } from './assignment.js';
import { registerCustomAuthentication } from './auth/request-authentication.hook.js';
import { registerCors } from './http/cors.hook.js';
import { registerCustomRoutes } from './http/custom-routes.hook.js';
import { RuntimeModule } from './runtime.module.js';
import { RUNTIME_RESPONSE_SCHEMAS } from './http/openapi-schemas.js';
import { openRuntimePersistence } from './runtime-persistence.js';

const BODY_LIMIT_BYTES = 50 * 1024 * 1024;
const REQUEST_TIMEOUT_MS = 60_000;

async function main(): Promise<void> {
  if (isSpare()) {
    // Started ahead of need with every module above loaded: the rest of the environment (the
    // application, its port, its secrets) arrives on stdin when a deployment takes this process.
    const assignment = await awaitAssignment(process.stdin);
    if (!assignment) process.exit(0);
    if (assignment.identity) dropPrivileges(assignment.identity);
    Object.assign(process.env, assignment.env);
  }
  const config = loadRuntimeConfig();
  const publicPaths = ['/ok', ...OPENAPI_PUBLIC_PATHS, ...metricsPublicPaths(process.env)];
  const { logger, nestLogger } = openProcessLogger('berth-runtime');
  // The application's graphs run in this process and can read its environment: the keys and the
  // tracing token are gone from it before they load.
  removeSecrets(process.env);
  const onError = (error: unknown): void => {
    logger.error(error instanceof Error ? error.message : String(error));
  };
  const persistence = await openRuntimePersistence(config, onError);
  for (const runner of persistence.runners) runner.start();
  const tracing = config.tracing ? new RunTraceReporter(config.tracing) : undefined;
  const runObserver = new RunObservers(tracing ? [new RunMetrics(), tracing] : [new RunMetrics()]);
  observeEventLog(persistence.eventStore, persistence.runners);
  measureRunQueue(persistence.pool);
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
  let customRoutes = await application.customRoutes();
  const customAuth = await application.customAuth();
  if (typeof customRoutes === 'string') logger.error(customRoutes);
  const signals = new RunSignals();
  const queue = new RunQueue(persistence.pool, (runId) =>
    runHasFinished(persistence.eventStore, runId),
  );

  const app = await NestFactory.create<NestFastifyApplication>(
    RuntimeModule.forRoot({
      eventStore: persistence.eventStore,
      dataSource: persistence.dataSource,
      freshness: new ReadModelFreshness(persistence.eventStore, persistence.runners),
      application,
      queue,
      signals,
      runFinished: runObserver,
      threadSweepSeconds: config.threadSweepSeconds,
      storeSweepSeconds: config.storeSweepSeconds,
      cronPollSeconds: config.cronPollSeconds,
      ...(customAuth ? { customAuth } : {}),
    }),
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
  app.useGlobalFilters(new ProblemFilter());
  // Nothing a client asks for is dropped without a word: an unknown field is a 422 naming it.
  app.useGlobalPipes(createValidationPipe({ refuseUnknownFields: true }));
  const fastify = app.getHttpAdapter().getInstance();
  observeRequests(fastify);
  registerJsonInput(fastify);
  registerCors(fastify, application.config.http?.cors);
  const keys = { accepts: keyAcceptor(config.apiKeys), publicPaths };
  if (customAuth) registerCustomAuthentication(fastify, customAuth, keys);
  else requireApiKey(fastify, keys);
  registerCustomRoutes(fastify, () => customRoutes, application.config.http?.disabled ?? new Set());
  serveOpenApi(
    app,
    buildOpenApiDocument(app, {
      title: 'Berth agent runtime',
      description: `Assistants, threads, runs, streams, store and crons of ${application.config.configFile}.`,
      version: BERTH_VERSION,
      responseSchemas: RUNTIME_RESPONSE_SCHEMAS,
      publicPaths,
    }),
  );
  await app.init();
  await app.get(AssistantsService).ensureDefaults(new Date().toISOString());
  const watcher = config.reloadOnChange
    ? watchSources(
        dirname(application.config.configFile),
        async (changed) => {
          const outcome = await application.reload();
          if (!outcome.reloaded) {
            logger.error(
              `The change to ${changed.join(', ')} is not served (the code before it still is): ${outcome.reason}`,
            );
            return;
          }
          customRoutes = await application.customRoutes();
          await app.get(AssistantsService).ensureDefaults(new Date().toISOString());
          logger.info(
            `Reloaded after a change to ${changed.join(', ')} (graphs: ${application.graphIds().join(', ')})`,
          );
        },
        onError,
      )
    : undefined;

  const workerId = `${hostname()}:${process.pid}:${uuidv7().slice(-8)}`;
  const workers = config.runWorkers
    ? new RunWorkerPool(
        queue,
        new RunExecutor(
          persistence.eventStore,
          application,
          queue,
          signals,
          {
            workerId,
            leaseSeconds: config.leaseSeconds,
            maxAttempts: config.maxAttempts,
            defaultTimeoutSeconds: config.runTimeoutSeconds,
            langgraphVersion: application.langgraphVersion,
          },
          runObserver,
        ),
        signals,
        {
          workerId,
          concurrency: config.workerConcurrency,
          leaseSeconds: config.leaseSeconds,
          pollIntervalMs: 1000,
          connectionString: persistence.database.url,
        },
      )
    : undefined;
  await workers?.start();
  await app.listen({ port: config.port, host: config.host });
  logger.info(
    `Berth agent runtime for ${config.graphConfigPath} on http://${config.host}:${config.port} ` +
      `(graphs: ${application.graphIds().join(', ')})`,
  );

  let stopping = false;
  const stop = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    logger.info(`${signal}: stopping`);
    watcher?.close();
    // Runs first: they go back to the queue at once instead of holding the shutdown.
    await workers?.stop();
    await app.close();
    // After the API and the workers: the runs they finished are reported too.
    await tracing?.close();
    await application.close();
    await persistence.close();
    process.exit(0);
  };
  process.once('SIGINT', (signal) => void stop(signal));
  process.once('SIGTERM', (signal) => void stop(signal));
  if (config.exitWithParent) {
    // The parent holds the other end of a stdin pipe: when it dies, even by SIGKILL, stdin ends.
    const parentGone = (): void => void stop('stdin closed (parent gone)');
    // Its output may have gone to the parent too: writing it then fails (EPIPE), which must not
    // end the process before it has stopped.
    const outputGone = (): void => undefined;
    process.stdout.on('error', outputGone);
    process.stderr.on('error', outputGone);
    process.stdin.on('end', parentGone);
    process.stdin.on('close', parentGone);
    process.stdin.on('error', parentGone);
    process.stdin.on('data', () => undefined);
    process.stdin.resume();
  }
}

function keyAcceptor(keys: ApiKeys): (presented: string) => boolean {
  return keys.kind === 'key' ? singleKey(keys.key) : keyDigests(keys.digests);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
