import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyRequest } from 'fastify';
import { BERTH_VERSION } from '#libs/config';
import {
  buildOpenApiDocument,
  createValidationPipe,
  type HttpDrain,
  ProblemFilter,
  publicPathMatcher,
  refuseWhileDraining,
  registerJsonInput,
  requireApiKey,
  serveOpenApi,
  type ApiKeyOptions,
} from '#libs/http';
import { observeRequests } from '#libs/metrics';
import { A2aAgents } from '../a2a/a2a-agents.js';
import { registerA2aRoutes } from '../a2a/a2a-routes.js';
import { acceptProtocolSocketTickets, serveProtocolSockets } from '../protocol/protocol-sockets.js';
import type { Application } from '../application/application.js';
import { registerCustomAuthentication } from '../auth/request-authentication.hook.js';
import type { CustomAuth } from '../auth/custom-auth.js';
import { serveMcp } from '../mcp/mcp.route.js';
import { readsUiBundleFile } from '../ui/ui-access.js';
import { bindInProcessClient } from '../common/in-process-client.js';
import { registerCors } from './cors.hook.js';
import { loopbackFetch } from './in-process-dispatch.js';
import { InProcessGrants, recognizeInProcessRequests } from './in-process-grants.js';
import { registerCustomRoutes } from './custom-routes.hook.js';
import { serveQueueProcessPathsOnly } from './queue-only.hook.js';
import { RUNTIME_RESPONSE_SCHEMAS } from './openapi-schemas.js';
import type { ServedRoutes } from './served-routes.js';
import { loadedCustomEncryption } from '../encryption/custom-encryption-loader.js';
import { registerEncryptionContext } from '../encryption/encryption-context.hook.js';

export interface RuntimeHttpOptions {
  readonly application: Application;
  readonly routes: ServedRoutes;
  readonly customAuth: CustomAuth | undefined;
  readonly keys: ApiKeyOptions;
  /** The server's stop: requests arriving meanwhile are refused with 503 and Retry-After. */
  readonly drain: HttpDrain;
  /** The tokens of requests handed over in process (`new Client()`, the app's middleware). */
  readonly grants: InProcessGrants;
  /** False in a process that runs the queue's runs only. */
  readonly serveApi: boolean;
}

/**
 * Once the server listens: `new Client()` without a URL, in the application's graphs and routes,
 * reaches it in process (as under `langgraph dev`), and so do relative webhooks.
 */
export function serveInProcessClient(
  app: NestFastifyApplication,
  grants: InProcessGrants,
  serverUrl: string,
): void {
  bindInProcessClient(
    loopbackFetch(app.getHttpAdapter().getInstance(), grants, serverUrl),
    serverUrl,
  );
}

/** Everything the runtime's HTTP server does around its routes: input, keys, CORS, A2A, OpenAPI. */
export function configureRuntimeHttp(
  app: NestFastifyApplication,
  { application, routes, customAuth, keys, drain, grants, serveApi }: RuntimeHttpOptions,
): void {
  app.useGlobalFilters(new ProblemFilter());
  // Nothing a client asks for is dropped without a word: an unknown field is a 422 naming it.
  app.useGlobalPipes(createValidationPipe({ refuseUnknownFields: true }));
  const fastify = app.getHttpAdapter().getInstance();
  observeRequests(fastify);
  if (!serveApi) serveQueueProcessPathsOnly(fastify);
  registerJsonInput(fastify);
  registerCors(fastify, application.config.http?.cors);
  refuseWhileDraining(fastify, drain);
  recognizeInProcessRequests(fastify, grants);
  acceptProtocolSocketTickets(app);
  const disabled = application.config.http?.disabled ?? new Set();
  // With `http.disable_ui` those paths are the application's own routes: they keep the key.
  const isPublic = (request: FastifyRequest): boolean =>
    !disabled.has('ui') && readsUiBundleFile(request.method, request.url);
  if (customAuth) registerCustomAuthentication(fastify, customAuth, { ...keys, isPublic });
  else
    requireApiKey(fastify, {
      ...keys,
      preauthenticated: (request) =>
        request.berthAuth !== undefined ||
        request.berthInProcess !== undefined ||
        isPublic(request),
    });
  const encryption = loadedCustomEncryption();
  if (encryption) registerEncryptionContext(fastify, encryption);
  registerCustomRoutes(fastify, {
    customRoutes: () => routes.current,
    disabled,
    grants,
    isPublic: publicPathMatcher(keys.publicPaths),
  });
  serveProtocolSockets(app, drain);
  registerA2aRoutes(fastify, app.get(A2aAgents), disabled.has('a2a'));
  if (!disabled.has('mcp')) serveMcp(app);
  serveOpenApi(
    app,
    buildOpenApiDocument(app, {
      title: 'Berth agent runtime',
      description: `Assistants, threads, runs, streams, store and crons of ${application.config.configFile}.`,
      version: BERTH_VERSION,
      responseSchemas: RUNTIME_RESPONSE_SCHEMAS,
      publicPaths: keys.publicPaths,
      openPaths: keys.openPaths,
    }),
  );
}
