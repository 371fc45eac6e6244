import {
  Inject,
  Injectable,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { from, map, of, switchMap, type Observable } from 'rxjs';
import { AUTH_EVENT, REFUSED_IN_STREAM, type AuthEventSpec } from '../auth/auth-event.decorator.js';
import { matchesFilters } from '../auth/custom-auth.js';
import {
  metadataOf,
  RequestAuthorization,
  type AuthorizationOutcome,
} from './request-authorization.js';
import { refusalInStream } from './stream-refusal.js';

type Json = Record<string, unknown>;

/** The refusal went out as the stream's one event. */
const TOLD_IN_STREAM = 'told in stream' as const;

const isRecord = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Asks the application's auth handler about each request a route marks with `@AuthEvent`
 * (see `RequestAuthorization`); a list the handler filters is filtered on its way out.
 */
@Injectable()
export class AuthorizationInterceptor implements NestInterceptor {
  constructor(
    @Inject(Reflector) private readonly reflector: Reflector,
    @Inject(RequestAuthorization) private readonly authorization: RequestAuthorization,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const spec = this.reflector.get<AuthEventSpec | undefined>(AUTH_EVENT, context.getHandler());
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (!spec || !this.authorization.applies(request.berthAuth)) return next.handle();
    const params = (request.params ?? {}) as Record<string, string>;
    const body: Json = isRecord(request.body) ? request.body : {};
    const asked = this.authorization
      .authorize(request.berthAuth, spec, params, body)
      .then((outcome) => {
        if (!isRecord(request.body) && Object.keys(body).length > 0) request.body = body;
        return outcome;
      });
    const inStream = this.reflector.get<boolean>(REFUSED_IN_STREAM, context.getHandler());
    const decided: Promise<AuthorizationOutcome | typeof TOLD_IN_STREAM> = inStream
      ? asked.catch(async (error: unknown) => {
          const reply = context.switchToHttp().getResponse<FastifyReply>();
          if (!(await refusalInStream(reply, error))) throw error;
          return TOLD_IN_STREAM;
        })
      : asked;
    return from(decided).pipe(
      switchMap((outcome) => {
        // The route streams with @Res(): the refusal, sent, is all its answer.
        if (outcome === TOLD_IN_STREAM) return of(undefined);
        if (outcome.answer !== undefined) return of(outcome.answer);
        const filters = outcome.postFilter;
        if (!filters) return next.handle();
        return next
          .handle()
          .pipe(
            map((items: unknown) =>
              Array.isArray(items)
                ? items.filter((item) => matchesFilters(metadataOf(item), filters))
                : items,
            ),
          );
      }),
    );
  }
}
