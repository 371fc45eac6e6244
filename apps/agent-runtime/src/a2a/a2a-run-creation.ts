import { Inject, Injectable } from '@nestjs/common';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import { isUuid } from '../common/uuid5.js';
import type { AuthContext } from '../auth/custom-auth.js';
import { RequestAuthorization } from '../authorization/request-authorization.js';
import type { JsonObject } from '#libs/event-store';
import type { CreateRunDto } from '../runs/runs.dto.js';
import { RunsService } from '../runs/runs.service.js';
import { ThreadsService } from '../threads/threads.service.js';

/** What an A2A message makes of a run: its assistant, and its input or resume command. */
export type A2aRunBody = Pick<CreateRunDto, 'assistant_id' | 'input' | 'command' | 'metadata'>;

const isRecord = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Runs created for A2A messages as `POST /threads/{id}/runs` creates them, the application's
 * auth handlers asked the same way (`threads:create` for a new context's thread, then
 * `threads:create_run`), their metadata kept.
 */
@Injectable()
export class A2aRunCreation {
  constructor(
    @Inject(RunsService) private readonly runs: RunsService,
    @Inject(ThreadsService) private readonly threads: ThreadsService,
    @Inject(RequestAuthorization) private readonly authorization: RequestAuthorization,
  ) {}

  /** Creates the run on the context's thread (made if new); `runId` names a new task's run. */
  async create(
    who: AuthContext | undefined,
    threadId: string,
    body: A2aRunBody,
    runId: string | undefined,
  ): Promise<string> {
    if (!isUuid(threadId)) {
      throw new RequestMalformedError(`contextId ${threadId} is not a UUID: it names a thread`);
    }
    const now = new Date().toISOString();
    if (!(await this.threads.exists(threadId))) {
      const asked: Record<string, unknown> = { thread_id: threadId, metadata: {} };
      await this.authorization.authorize(who, { resource: 'threads', action: 'create' }, {}, asked);
      const metadata = isRecord(asked.metadata) ? asked.metadata : {};
      await this.threads.create(threadId, metadata, 'do_nothing', now);
    }
    const asked: Record<string, unknown> = { ...body };
    const spec = { resource: 'threads', action: 'create_run' } as const;
    await this.authorization.authorize(who, spec, { threadId }, asked);
    const payload: A2aRunBody = {
      ...body,
      ...(isRecord(asked.metadata) ? { metadata: asked.metadata } : {}),
    };
    if (runId === undefined) return (await this.runs.create(threadId, payload, now)).data.run_id;
    const created = await this.runs.createOnce(threadId, payload, now, { runId, threadId });
    if (!created) throw new RequestMalformedError(`Task ${runId} exists already`);
    return runId;
  }
}
