import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { JsonObject } from '#libs/domain';
import type { AuthContext } from './custom-auth.js';

/**
 * Who a request acts as, for the audit trail of what it changes: a user of the application's
 * auth by identity, or the platform (a caller with Berth's API key, or any caller of a runtime
 * without its own auth).
 */
export function actorOf(who: AuthContext | undefined): JsonObject {
  return who?.kind === 'user'
    ? { kind: 'user', identity: who.user.identity }
    : { kind: 'platform' };
}

/** The request's actor (see actorOf). */
export const RequestActor = createParamDecorator((_data: unknown, context: ExecutionContext) =>
  actorOf(context.switchToHttp().getRequest<FastifyRequest>().berthAuth),
);
