import { Inject, Injectable } from '@nestjs/common';
import { conflict, forbidden, notFound } from '#libs/domain';
import { AssistantsService } from '../assistants/assistants.service.js';
import { CronsService } from '../crons/crons.service.js';
import { RunsService } from '../runs/runs.service.js';
import { ThreadsService } from '../threads/threads.service.js';
import type { AuthEventSpec } from '../auth/auth-event.decorator.js';
import {
  CUSTOM_AUTH,
  CustomAuth,
  filtersAsContainment,
  matchesFilters,
  type AuthContext,
  type AuthFilters,
} from '../auth/custom-auth.js';
import { authValueOf, mergeContainment } from '../auth/auth-values.js';

type Json = Record<string, unknown>;

const NOUNS = { threads: 'Thread', assistants: 'Assistant', crons: 'Cron' } as const;
const isRecord = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** What a route does with the handler's answer: answer at once, or filter what it returns. */
export interface AuthorizationOutcome {
  readonly answer?: unknown;
  readonly postFilter?: AuthFilters;
}

/**
 * The application's auth handler asked about one action, whatever door it came through (a
 * route marked with `@AuthEvent`, an A2A call): a create's metadata takes what the handler
 * wrote (in `body`); a search or count gets the filters added to its metadata filter; an
 * action on one thread or assistant is a 404 unless its metadata passes them. The platform
 * (Berth's API key) and requests without the application's auth are not filtered.
 */
@Injectable()
export class RequestAuthorization {
  constructor(
    @Inject(CUSTOM_AUTH) private readonly auth: CustomAuth | null,
    @Inject(ThreadsService) private readonly threads: ThreadsService,
    @Inject(AssistantsService) private readonly assistants: AssistantsService,
    @Inject(RunsService) private readonly runs: RunsService,
    @Inject(CronsService) private readonly crons: CronsService,
  ) {}

  /** Whether `who` is filtered at all: a user of the application's own auth. */
  applies(who: AuthContext | undefined): who is AuthContext & { kind: 'user' } {
    return this.auth !== null && who !== undefined && who.kind === 'user';
  }

  /** Asks the handler; `body` (the request's) may get the metadata the handler wrote. */
  async authorize(
    who: AuthContext | undefined,
    spec: AuthEventSpec,
    params: Readonly<Record<string, string>>,
    body: Json,
  ): Promise<AuthorizationOutcome> {
    const auth = this.auth;
    if (!auth || !this.applies(who)) return {};
    if (spec.resource === 'crons' && spec.action === 'create' && params.threadId) {
      // Each tick runs on the thread: the user must be one who may run on it.
      await this.authorize(who, { resource: 'threads', action: 'create_run' }, params, body);
    }
    const value = authValueOf(spec, params, body);
    const filters = await auth.authorize(who, spec.resource, spec.action, value);
    if ((spec.action === 'create' || spec.action === 'create_run') && isRecord(value.metadata)) {
      body.metadata = value.metadata;
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
      return {};
    }
    const metadata = await this.metadataOf(spec, params, body);
    if (metadata === undefined && spec.action !== 'create_run') {
      // An action over many threads at once (cancelling runs by status) cannot be filtered.
      throw forbidden('Name the thread: this action is filtered by your auth handler');
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
      throw conflict(
        `${spec.resource === 'threads' ? 'Thread' : 'Assistant'} ${id} already exists`,
      );
    }
  }

  /** The metadata of the thread or assistant the action is about; undefined for stateless runs. */
  private async metadataOf(
    spec: AuthEventSpec,
    params: Readonly<Record<string, string>>,
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

/** The `metadata` of a resource (a thread, an assistant, a run, a cron), `{}` without one. */
export function metadataOf(resource: unknown): Json {
  return isRecord(resource) && isRecord(resource.metadata) ? resource.metadata : {};
}
