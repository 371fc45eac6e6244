import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyRequest } from 'fastify';
import { BERTH_VERSION } from '#libs/config';
import {
  buildOpenApiDocument,
  createValidationPipe,
  OPENAPI_PUBLIC_PATHS,
  ProblemFilter,
  presentedKey,
  publicPathMatcher,
  registerJsonInput,
  serveOpenApi,
  serverOptions,
} from '#libs/http';
import type { Logger } from '#libs/logging';
import { metricsPublicPaths, observeRequests } from '#libs/metrics';
import { CONSOLE_PUBLIC_PATHS, serveConsole } from './console/serve-console.js';
import { DeploymentQueries } from './deployments/deployment-queries.service.js';
import { STATUS_PAGE_PATH } from './deployments/deployment-status-page.controller.js';
import { CONTROL_PLANE_RESPONSE_SCHEMAS } from './health/openapi-schemas.js';
import type { PlatformResources } from './platform-resources.js';
import { CONTROL_PLANE_REQUEST_TIMEOUT_MS } from './request-timeout.js';
import { registerRuntimeGateway } from './runtime-gateway/runtime-gateway.js';
import { identifyCallers } from './tenancy/caller.js';
import { TRACING_INGEST_PATH } from './tracing/tracing.controller.js';
import { checkTracingTokensFirst } from './tracing/tracing-ingest-auth.js';
import {
  isUploadRequest,
  registerUploadBodyParser,
  uploadAwareUnsupportedType,
} from './uploads/upload-body-parser.js';

const BODY_LIMIT_BYTES = 10 * 1024 * 1024;

/** Pages served to GET without a key: probes, the API's description, the console's files. */
function publicPages(): string[] {
  return [
    '/ok',
    ...OPENAPI_PUBLIC_PATHS,
    ...metricsPublicPaths(process.env),
    ...CONSOLE_PUBLIC_PATHS,
  ];
}

/**
 * What is served without a key: probes, the API's description, uploads (signed), traces (token),
 * and the status URL the official deploy CLI prints, opened in a browser (it sends no key).
 */
function publicRequests(
  publicPages: readonly string[],
): (method: string, path: string, request: FastifyRequest) => boolean {
  const isPublicPage = publicPathMatcher(publicPages);
  return (method, path, request) =>
    (method === 'GET' && isPublicPage(path)) ||
    (method === 'GET' && STATUS_PAGE_PATH.test(path) && presentedKey(request) === undefined) ||
    isUploadRequest(method, path) ||
    (method === 'POST' && TRACING_INGEST_PATH.test(path));
}

/** The control plane's Fastify: its limits, request metrics, JSON and tarball bodies. */
export function controlPlaneAdapter(logger: Logger): FastifyAdapter {
  const adapter = new FastifyAdapter(
    serverOptions({
      bodyLimitBytes: BODY_LIMIT_BYTES,
      requestTimeoutMs: CONTROL_PLANE_REQUEST_TIMEOUT_MS,
      logger,
    }),
  );
  observeRequests(adapter.getInstance());
  registerJsonInput(adapter.getInstance(), { unsupportedType: uploadAwareUnsupportedType });
  registerUploadBodyParser(adapter.getInstance());
  return adapter;
}

/**
 * Everything the control plane's HTTP server does around its routes: errors, validation, keys, the
 * runtime gateway, OpenAPI and the console. Resolves with whether the console is served.
 */
export async function configureControlPlaneHttp(
  app: NestFastifyApplication,
  resources: PlatformResources,
): Promise<boolean> {
  app.useGlobalFilters(new ProblemFilter());
  app.useGlobalPipes(createValidationPipe());
  const fastify = app.getHttpAdapter().getInstance();
  const pages = publicPages();
  identifyCallers(fastify, resources.tenants, publicRequests(pages));
  checkTracingTokensFirst(fastify, resources.tracingTokens);
  const deployments = app.get(DeploymentQueries);
  registerRuntimeGateway(fastify, {
    addressOf: (caller, deploymentId) => deployments.runtimeAddress(caller, deploymentId),
    courier: resources.courier,
  });
  serveOpenApi(
    app,
    buildOpenApiDocument(app, {
      title: 'Berth control plane',
      description: 'Deployments of agent applications, their revisions, logs and uploads.',
      version: BERTH_VERSION,
      responseSchemas: CONTROL_PLANE_RESPONSE_SCHEMAS,
      publicPaths: pages,
    }),
  );
  return serveConsole(fastify);
}
