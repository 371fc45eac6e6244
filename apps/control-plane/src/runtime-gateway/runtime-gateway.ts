import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { describeProblem, problemHeaders, STATUS_OF_CODE } from '#libs/http';
import { endToEnd, forwardToRuntime } from '../deployer/runtime-forwarding.js';
import { handOverUpgrade, serveUpgrades, upgradeOf } from '../deployer/upgrade-requests.js';
import type { UpgradeCourier } from '../deployer/websocket-courier.js';
import type { RuntimeAddress } from '../deployments/runtime-address.js';
import type { Caller } from '../tenancy/tenant-directory.js';

export interface RuntimeGatewayOptions {
  /** The port of the caller's deployment; throws a coded error (404) for another tenant's. */
  readonly addressOf: (caller: Caller, deploymentId: string) => Promise<RuntimeAddress>;
  /** Where accepted upgrades are handed over, under `GATEWAY_WEBSOCKETS`. */
  readonly courier: UpgradeCourier;
}

/** The courier's key of the WebSockets opened through the gateway. */
const GATEWAY_WEBSOCKETS = 'runtime-gateway';

export const RUNTIME_GATEWAY_PREFIX = '/v2/deployments/:deployment_id/runtime';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Headers that belong to the hop from the browser to the control plane. */
const NOT_FORWARDED = new Set(['host', 'content-length', 'x-tenant-id']);

function forwardedHeaders(headers: IncomingHttpHeaders, body: string | undefined) {
  const kept = Object.fromEntries(
    Object.entries(endToEnd(headers)).filter(([name]) => !NOT_FORWARDED.has(name)),
  );
  return body === undefined ? kept : { ...kept, 'content-length': Buffer.byteLength(body) };
}

function statusOf(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? STATUS_OF_CODE[code] : undefined;
}

/**
 * The runtime API of a tenant's deployment, under the control plane's own address and key:
 * `/v2/deployments/{id}/runtime/threads/…` is `/threads/…` on that deployment. The console uses
 * it, so one origin and one key reach both planes. Bodies are JSON, as the runtime takes them;
 * answers, streams included, pass through as they come. WebSocket upgrades are routed as requests
 * (the key checked, the same headers forwarded), then handed over to the courier, which sends
 * them on to the deployment's port.
 */
export function registerRuntimeGateway(app: FastifyInstance, options: RuntimeGatewayOptions): void {
  // An upgrade is routed as a request, through the same hooks (the key). This route goes on to
  // upgrade; any other answers as it would over HTTP, and the socket is closed.
  const closeUpgraded = serveUpgrades(app.server, (request, response) => {
    app.routing(request, response);
  });
  app.addHook('preClose', (done) => {
    closeUpgraded();
    options.courier.closeAll(GATEWAY_WEBSOCKETS);
    done();
  });
  app.all(
    `${RUNTIME_GATEWAY_PREFIX}/*`,
    { errorHandler: answerProblem },
    async (request, reply) => {
      const { deployment_id: deploymentId = '' } = request.params as Record<string, string>;
      const caller = request.caller;
      if (!caller) return reply.status(401).send({ detail: 'Missing API key' });
      if (!UUID.test(deploymentId)) {
        return reply.status(400).send({ detail: 'Validation failed (uuid is expected)' });
      }
      let address: RuntimeAddress;
      try {
        address = await options.addressOf(caller, deploymentId);
      } catch (error) {
        const status = statusOf(error);
        if (status === undefined) throw error;
        return reply.status(status).send({ detail: (error as Error).message });
      }
      if ('unreachable' in address) return reply.status(409).send({ detail: address.unreachable });
      // The path as the client sent it, still encoded: `%2F` in a segment must stay one segment.
      const runtimePath = request.url.slice(request.url.indexOf('/runtime/') + '/runtime'.length);
      const body = request.body === undefined ? undefined : JSON.stringify(request.body);
      const target = {
        endpoint: address.port,
        method: request.method,
        path: runtimePath,
        headers: forwardedHeaders(request.headers, body),
      };
      try {
        if (upgradeOf(request.raw)) {
          handOverUpgrade(options.courier, GATEWAY_WEBSOCKETS, target, reply.raw);
        } else forwardToRuntime({ ...target, body }, reply.raw);
      } catch (error) {
        // A path or header Node will not send on (checked before anything is sent).
        return reply
          .status(400)
          .send({ detail: `The request cannot be forwarded: ${(error as Error).message}` });
      }
      reply.hijack();
      return reply;
    },
  );
}

/**
 * Errors before the request is forwarded (a body or query the control plane's input rules refuse,
 * a media type it does not take) answered as every other route answers them: `{detail}`, never
 * Fastify's own `{statusCode, error, message}`.
 */
function answerProblem(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const [status, detail] = describeProblem(error, (message) => {
    request.log.error(message);
  });
  if (reply.sent) return;
  void reply
    .status(status)
    .headers(problemHeaders(detail))
    .header('content-type', 'application/json')
    .send({ detail });
}
