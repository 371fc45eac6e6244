import {
  ConflictException,
  ForbiddenException,
  HttpException,
  Inject,
  Injectable,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { from, map, of, switchMap, type Observable } from 'rxjs';
import { notFound } from '#libs/domain';
import { AssistantsService } from '../assistants/assistants.service.js';
import { CronsService } from '../crons/crons.service.js';
import { RunsService } from '../runs/runs.service.js';
import { ThreadsService } from '../threads/threads.service.js';
import { AUTH_EVENT, type AuthEventSpec } from '../auth/auth-event.decorator.js';
import {
  AuthRejection,
  CUSTOM_AUTH,
  CustomAuth,
  filtersAsContainment,
  matchesFilters,
  type AuthFilters,
} from '../auth/custom-auth.js';
import { authValueOf, mergeContainment } from '../auth/auth-values.js';

type Json = Record<string, unknown>;

const NOUNS = { threads: 'Thread', assistants: 'Assistant', crons: 'Cron' } as const;
const isRecord = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Asks the application's auth handler about each request a route marks with `@AuthEvent`:
 * a create's metadata takes what the handler wrote; a search or count gets the filters added to
 * its metadata filter; a route on one thread or assistant answers 404 unless its metadata
 * passes them. Requests of the platform (Berth's API key) are not filtered.
 */
@Injectable()
export class AuthorizationInterceptor implements NestInterceptor {
  constructor(
    @Inject(Reflector) private readonly reflector: Reflector,
    @Inject(CUSTOM_AUTH) private readonly auth: CustomAuth | null,
    @Inject(ThreadsService) private readonly threads: ThreadsService,
    @Inject(AssistantsService) private readonly assistants: AssistantsService,
    @Inject(RunsService) private readonly runs: RunsService,
    @Inject(CronsService) private readonly crons: CronsService,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const spec = this.reflector.get<AuthEventSpec | undefined>(AUTH_EVENT, context.getHandler());
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const who = request.berthAuth;
    if (!this.auth || !spec || !who || who.kind === 'platform') return next.handle();
    return from(this.authorize(this.auth, spec, request)).pipe(
      switchMap((outcome) => {
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

  private async authorize(
    auth: CustomAuth,
    spec: AuthEventSpec,
    request: FastifyRequest,
  ): Promise<{ answer?: unknown; postFilter?: AuthFilters }> {
    const params = (request.params ?? {}) as Record<string, string>;
    if (spec.resource === 'crons' && spec.action === 'create' && params.threadId) {
      // Each tick runs on the thread: the user must be one who may run on it.
      await this.authorize(auth, { resource: 'threads', action: 'create_run' }, request);
    }
    const body: Json = isRecord(request.body) ? request.body : {};
    const value = authValueOf(spec, params, body);
    const who = request.berthAuth;
    if (!who) return {};
    const filters = await auth
      .authorize(who, spec.resource, spec.action, value)
      .catch((error: unknown) => {
        if (error instanceof AuthRejection) throw new HttpException(error.message, error.status);
        throw error;
      });
    if ((spec.action === 'create' || spec.action === 'create_run') && isRecord(value.metadata)) {
      body.metadata = value.metadata;
      if (!isRecord(request.body)) request.body = body;
    }
    if (!filters) return {};
    if (spec.action === 'create') {
      if (spec.resource !== 'crons') await this.refuseTakingOver(spec, body, filters);
      return {};
    }
    if (spec.list) {
      const containment = filtersAsContainment(filters);
      if (!containment) {
        if (spec.list === 'count') {
          throw new Error('Auth filters with object values cannot be counted; use $eq on scalars');
        }
        return { postFilter: filters };
      }
      const merged = mergeContainment(isRecord(body.metadata) ? body.metadata : {}, containment);
      if (merged === undefined) return { answer: spec.list === 'count' ? 0 : [] };
      body.metadata = merged;
      if (!isRecord(request.body)) request.body = body;
      return {};
    }
    const metadata = await this.metadataOf(spec, params, body);
    if (metadata === undefined && spec.action !== 'create_run') {
      // An action over many threads at once (cancelling runs by status) cannot be filtered.
      throw new ForbiddenException('Name the thread: this action is filtered by your auth handler');
    }
    if (metadata !== undefined && !matchesFilters(metadata, filters)) {
      throw notFound(`${NOUNS[spec.resource]} not found`);
    }
    return {};
  }

  /**
   * A create naming the id of another user's thread or assistant (with `if_exists: do_nothing`
   * it would answer with it) is a conflict, and tells nothing of what is there.
   */
  private async refuseTakingOver(
    spec: AuthEventSpec,
    body: Json,
    filters: AuthFilters,
  ): Promise<void> {
    const id = spec.resource === 'threads' ? body.thread_id : body.assistant_id;
    if (typeof id !== 'string') return;
    const params: Record<string, string> =
      spec.resource === 'threads' ? { threadId: id } : { assistantId: id };
    const existing = await this.metadataOf(spec, params, {}).catch(() => undefined);
    if (existing !== undefined && !matchesFilters(existing, filters)) {
      throw new ConflictException(
        `${spec.resource === 'threads' ? 'Thread' : 'Assistant'} ${id} already exists`,
      );
    }
  }

  /** The metadata of the thread or assistant the route is about; undefined for stateless runs. */
  private async metadataOf(
    spec: AuthEventSpec,
    params: Record<string, string>,
    body: Json,
  ): Promise<Json | undefined> {
    if (spec.resource === 'threads') {
      const threadId =
        params.threadId ??
        (typeof body.thread_id === 'string' ? body.thread_id : undefined) ??
        (params.runId ? await this.runs.threadOfRun(params.runId) : undefined);
      if (!threadId) return undefined;
      return metadataOf(await this.threads.get(threadId));
    }
    if (spec.resource === 'crons') {
      return params.cronId ? metadataOf(await this.crons.get(params.cronId)) : undefined;
    }
    if (!params.assistantId) return undefined;
    return (await this.assistants.resolve(params.assistantId)).metadata;
  }
}

function metadataOf(resource: unknown): Json {
  return isRecord(resource) && isRecord(resource.metadata) ? resource.metadata : {};
}
