import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { presentedKey } from '#libs/http';
import type { Caller, TenantDirectory } from './tenant-directory.js';

declare module 'fastify' {
  interface FastifyRequest {
    caller?: Caller;
  }
}

export const UNSEALED_TENANT_REFUSED =
  'This Berth cannot seal tenants from each other (its start-up log says why), so it serves ' +
  "its first tenant only and refuses this tenant's keys. The operator can accept them with " +
  'BERTH_ALLOW_UNSEALED_TENANTS=true.';

/**
 * Every request but the public ones must carry a tenant's key (x-api-key or a bearer token);
 * the caller it identifies travels with the request. An `X-Tenant-Id` header, when sent, must
 * name the key's own tenant.
 */
export function identifyCallers(
  app: FastifyInstance,
  directory: TenantDirectory,
  isPublic: (method: string, path: string, request: FastifyRequest) => boolean,
): void {
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    if (isPublic(request.method, request.url.split('?')[0] ?? '', request)) return undefined;
    const key = presentedKey(request);
    if (key === undefined) {
      await reply.status(401).send({ detail: 'Missing API key: send it in the X-Api-Key header' });
      return reply;
    }
    const identified = directory.identify(key);
    if (!identified) {
      await reply.status(401).send({ detail: 'Invalid API key' });
      return reply;
    }
    if ('refusedTenant' in identified) {
      await reply.status(403).send({ detail: UNSEALED_TENANT_REFUSED });
      return reply;
    }
    const { caller } = identified;
    const tenant = request.headers['x-tenant-id'];
    if (typeof tenant === 'string' && tenant.trim().toLowerCase() !== caller.tenant_id) {
      await reply
        .status(403)
        .send({ detail: `This API key does not act for tenant ${tenant.trim()} (X-Tenant-Id)` });
      return reply;
    }
    request.caller = caller;
    return undefined;
  });
}

export const CurrentCaller = createParamDecorator((_: unknown, context: ExecutionContext) => {
  const caller = context.switchToHttp().getRequest<FastifyRequest>().caller;
  if (!caller) throw new Error('A route that needs a caller was served without one');
  return caller;
});
