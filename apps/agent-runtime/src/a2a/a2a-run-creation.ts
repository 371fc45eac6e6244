import { Inject, Injectable } from '@nestjs/common';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import { isRefusal } from '#libs/http';
import { isUuid } from '../common/uuid5.js';
import type { AuthContext } from '../auth/custom-auth.js';
import { runCallerOf, type RunCaller } from '../auth/run-caller.js';
import { RequestAuthorization } from '../authorization/request-authorization.js';
import type { JsonObject } from '#libs/event-store';
import type { CreateRunDto } from '../runs/create-run/create-run.dto.js';
import { RunCommands } from '../runs/run-commands.js';
import { ThreadsService } from '../threads/threads.service.js';
import { ThreadCommands } from '../threads/thread-commands.js';

/** What an A2A message makes of a run: its assistant, and its input or resume command. */
export type A2aRunBody = Pick<CreateRunDto, 'assistant_id' | 'input' | 'command' | 'metadata'>;

/** A run the application's auth has let a message make, not made yet. */
export interface AdmittedRun {
  readonly threadId: string;
  /** The metadata of the context's thread when it is to be made (what `threads:create` wrote). */
  readonly newThread: JsonObject | undefined;
  readonly body: A2aRunBody;
  /** The user of the application's auth the run is for. */
  readonly caller: RunCaller | undefined;
}

const isRecord = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A refusal of the application's auth (or a thread it hides) as the A2A error it answers. */
function refusalOf(error: unknown, threadId: string): unknown {
  if (isRefusal(error)) {
    return new RequestMalformedError(`contextId ${threadId}: ${error.message}`);
  }
  return error;
}

/**
 * Runs created for A2A messages as `POST /threads/{id}/runs` creates them, in two steps: before
 * the SDK makes a task, the message is admitted (its context a thread id; the application's auth
 * handlers asked, `threads:create` for a new context's thread, then `threads:create_run`), so a
 * refusal is a JSON-RPC error; then the run is made, the handlers' metadata kept.
 */
@Injectable()
export class A2aRunCreation {
  constructor(
    @Inject(RunCommands) private readonly runCommands: RunCommands,
    @Inject(ThreadsService) private readonly threads: ThreadsService,
    @Inject(ThreadCommands) private readonly threadCommands: ThreadCommands,
    @Inject(RequestAuthorization) private readonly authorization: RequestAuthorization,
  ) {}

  /** Lets the message make its run on the context's thread, or throws the A2A error why not. */
  async admit(
    who: AuthContext | undefined,
    threadId: string,
    body: A2aRunBody,
  ): Promise<AdmittedRun> {
    if (!isUuid(threadId)) {
      throw new RequestMalformedError(`contextId ${threadId} is not a UUID: it names a thread`);
    }
    try {
      let newThread: JsonObject | undefined;
      if (!(await this.threads.exists(threadId))) {
        const asked: Record<string, unknown> = { thread_id: threadId, metadata: {} };
        const spec = { resource: 'threads', action: 'create' } as const;
        await this.authorization.authorize(who, spec, {}, asked);
        newThread = isRecord(asked.metadata) ? asked.metadata : {};
      }
      const asked: Record<string, unknown> = { ...body };
      const spec = { resource: 'threads', action: 'create_run' } as const;
      // A thread still to be made is the caller's own: only the handler's word is asked.
      await this.authorization.authorize(who, spec, newThread ? {} : { threadId }, asked);
      const metadata = isRecord(asked.metadata) ? { metadata: asked.metadata } : {};
      return { threadId, newThread, body: { ...body, ...metadata }, caller: runCallerOf(who) };
    } catch (error) {
      throw refusalOf(error, threadId);
    }
  }

  /** Makes the admitted run (and its thread if new); `runId` names a new task's run. */
  async create(
    admitted: AdmittedRun,
    metadata: JsonObject,
    runId: string | undefined,
  ): Promise<string> {
    const { threadId, newThread, caller } = admitted;
    const now = new Date().toISOString();
    // `raise`: a thread someone made since the admission is not taken over.
    if (newThread) await this.threadCommands.create(threadId, newThread, 'raise', now);
    const body = { ...admitted.body, metadata: { ...admitted.body.metadata, ...metadata } };
    if (runId === undefined) {
      return (await this.runCommands.create(threadId, body, now, caller)).data.run_id;
    }
    const created = await this.runCommands.createOnce(
      threadId,
      body,
      now,
      { runId, threadId },
      caller,
    );
    if (!created) throw new RequestMalformedError(`Task ${runId} exists already`);
    return runId;
  }
}
