import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { BERTH_VERSION } from '#libs/config';
import { openProcessLogger, stopOnSignals } from '#libs/logging';
import {
  buildOpenApiDocument,
  createValidationPipe,
  OPENAPI_PUBLIC_PATHS,
  ProblemFilter,
  publicPathMatcher,
  registerJsonInput,
  serveOpenApi,
  serverOptions,
} from '#libs/http';
import { metricsPublicPaths, observeEventLog, observeRequests } from '#libs/metrics';
import { CONTROL_PLANE_RESPONSE_SCHEMAS } from './health/openapi-schemas.js';
import { loadControlPlaneConfig } from './control-plane.config.js';
import { ControlPlaneModule } from './control-plane.module.js';
import { openPlatformResources } from './platform-resources.js';
import { identifyCallers } from './tenancy/caller.js';
import { CONSOLE_PUBLIC_PATHS, serveConsole } from './console/serve-console.js';
import { DeploymentsService } from './deployments/deployments.service.js';
import { registerRuntimeGateway } from './runtime-gateway/runtime-gateway.js';
import { TRACING_INGEST_PATH } from './tracing/tracing.controller.js';
import {
  isUploadRequest,
  registerUploadBodyParser,
  uploadAwareUnsupportedType,
} from './uploads/upload-body-parser.js';

const BODY_LIMIT_BYTES = 10 * 1024 * 1024;
/** Long enough for a 200 MB tarball at 1 MB/s; a stalled one is cut sooner by the idle timeout. */
const REQUEST_TIMEOUT_MS = 300_000;

/** What is served without a key: probes, the API's description, uploads (signed) and traces (token). */
function publicRequests(publicPages: readonly string[]): (method: string, path: string) => boolean {
  const isPublicPage = publicPathMatcher(publicPages);
  return (method, path) =>
    (method === 'GET' && isPublicPage(path)) ||
    isUploadRequest(method, path) ||
    (method === 'POST' && TRACING_INGEST_PATH.test(path));
}

async function main(): Promise<void> {
  const config = loadControlPlaneConfig();
  const publicPages = [
    '/ok',
    ...OPENAPI_PUBLIC_PATHS,
    ...metricsPublicPaths(process.env),
    ...CONSOLE_PUBLIC_PATHS,
  ];
  const { logger, nestLogger } = openProcessLogger('berth-control-plane');
  const onError = (error: unknown): void => {
    logger.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  };
  const resources = await openPlatformResources(config, { onError });
  observeEventLog(resources.eventStore, resources.runners);
  const adapter = new FastifyAdapter(
    serverOptions({
      bodyLimitBytes: BODY_LIMIT_BYTES,
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
      logger,
    }),
  );
  observeRequests(adapter.getInstance());
  registerJsonInput(adapter.getInstance(), { unsupportedType: uploadAwareUnsupportedType });
  registerUploadBodyParser(adapter.getInstance());
  const app = await NestFactory.create<NestFastifyApplication>(
    ControlPlaneModule.forRoot(resources, {
      onError,
      onInfo: (message) => {
        logger.info(message);
      },
    }),
    adapter,
    // JSON bodies are parsed by registerJsonInput, not by Nest's default parser.
    { logger: nestLogger, bodyParser: false },
  );
  app.useGlobalFilters(new ProblemFilter());
  app.useGlobalPipes(createValidationPipe());
  identifyCallers(
    app.getHttpAdapter().getInstance(),
    resources.tenants,
    publicRequests(publicPages),
  );
  const deployments = app.get(DeploymentsService);
  registerRuntimeGateway(app.getHttpAdapter().getInstance(), {
    addressOf: (caller, deploymentId) => deployments.runtimeAddress(caller, deploymentId),
  });
  serveOpenApi(
    app,
    buildOpenApiDocument(app, {
      title: 'Berth control plane',
      description: 'Deployments of agent applications, their revisions, logs and uploads.',
      version: BERTH_VERSION,
      responseSchemas: CONTROL_PLANE_RESPONSE_SCHEMAS,
      publicPaths: publicPages,
    }),
  );
  const consoleServed = await serveConsole(app.getHttpAdapter().getInstance());
  // Starts the projections and the reconciler, then serves.
  await app.listen({ port: config.port, host: config.host });
  const where = resources.database.embedded
    ? `embedded PostgreSQL in ${config.dataDir}`
    : 'DATABASE_URL';
  logger.info(`Berth control plane on http://${config.host}:${config.port} (database: ${where})`);
  if (!consoleServed)
    logger.warn('The web console was not built (npm run build): / serves nothing');
  const sealing = describeSealing(resources.sandbox.gaps, resources.refusedTenants);
  if (sealing) logger.warn(sealing);

  stopOnSignals(logger, async () => {
    // The reconciler first (its rollouts end, its runtimes stop), then the HTTP server, then the
    // projections.
    await app.close();
    await resources.close();
  });
}

/** Said once at start when tenants are not sealed from each other, with what follows from it. */
function describeSealing(gaps: readonly string[], refused: readonly string[]): string | undefined {
  if (gaps.length === 0) return undefined;
  const consequence =
    refused.length > 0
      ? `The keys of tenant(s) ${refused.join(', ')} are refused (403); set BERTH_ALLOW_UNSEALED_TENANTS=true to accept them.`
      : 'Every configured tenant is served (one tenant only, or BERTH_ALLOW_UNSEALED_TENANTS=true).';
  return `Tenants are not sealed from each other here: ${gaps.join('; ')}. ${consequence}`;
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
