import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuthContext } from '../auth/custom-auth.js';

/** The header that carries an in-process request's one-time token; never seen past the first hook. */
export const IN_PROCESS_HEADER = 'x-berth-in-process';

/**
 * What a request handed over in process may skip:
 * - `berth-route`: the step from the application's middleware to Berth's route, for a request
 *   already authenticated (as `auth`) and already through the application's app;
 * - `loopback`: a request of the application's own code (`new Client()` without a URL, a relative
 *   webhook), which stands in for the API key. The application's authentication, when it has
 *   one, still decides who it acts for, as under `langgraph dev`.
 */
export type InProcessGrant =
  | { readonly kind: 'berth-route'; readonly auth: AuthContext | undefined }
  | { readonly kind: 'loopback' };

/** A grant handed over: the response its request got, once its first hook has run. */
export interface HandedOver {
  readonly grant: InProcessGrant;
  response?: ServerResponse;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** What this request, handed over in process, was granted. */
    berthInProcess?: InProcessGrant;
  }
}

/**
 * The tokens of in-process requests: random, good for one request, and only while it is handed
 * over. A request from the network cannot know one; a header it forges is dropped unread.
 */
export class InProcessGrants {
  private readonly issued = new Map<string, HandedOver>();

  issue(grant: InProcessGrant): { token: string; handedOver: HandedOver; revoke: () => void } {
    const token = randomBytes(24).toString('base64url');
    const handedOver: HandedOver = { grant };
    this.issued.set(token, handedOver);
    return {
      token,
      handedOver,
      revoke: () => {
        this.issued.delete(token);
      },
    };
  }

  /** The grant of the request's token, used up; the header is removed either way. */
  redeem(request: FastifyRequest, response: ServerResponse): InProcessGrant | undefined {
    const token = request.raw.headers[IN_PROCESS_HEADER];
    if (token === undefined) return undefined;
    delete request.raw.headers['x-berth-in-process'];
    if (typeof token !== 'string') return undefined;
    const handedOver = this.issued.get(token);
    if (!handedOver) return undefined;
    this.issued.delete(token);
    handedOver.response = response;
    return handedOver.grant;
  }
}

/**
 * Before the WebSocket tickets and the keys: an in-process request is recognised by its token.
 * One going to Berth's route carries the authentication of the request it continues.
 */
export function recognizeInProcessRequests(app: FastifyInstance, grants: InProcessGrants): void {
  app.addHook('onRequest', async (request, reply) => {
    const grant = grants.redeem(request, reply.raw);
    if (!grant) return;
    request.berthInProcess = grant;
    if (grant.kind === 'berth-route' && grant.auth) request.berthAuth = grant.auth;
  });
}
