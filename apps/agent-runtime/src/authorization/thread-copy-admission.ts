import { Inject, Injectable } from '@nestjs/common';
import { conflict, DomainError } from '#libs/domain';
import type { JsonObject } from '#libs/event-store';
import type { AuthContext } from '../auth/custom-auth.js';
import { ThreadsService } from '../threads/threads.service.js';
import { ThreadCommands } from '../threads/thread-commands.js';
import { ThreadCopyAdmission, type AdmittedCopy } from '../threads/thread-copy-admission.js';
import { metadataOf, RequestAuthorization } from './request-authorization.js';

/**
 * A copy asks the application's handlers as the JS server does: `threads:read` on the source, a
 * source the caller may not see (or that does not exist) being a 409 that tells the two apart
 * no more than a 404 would; then `threads:create` on the copy (its new id, the source's metadata),
 * whose metadata, as the handler leaves it, is the copy's.
 */
@Injectable()
export class AuthorizedThreadCopy extends ThreadCopyAdmission {
  constructor(
    @Inject(RequestAuthorization) private readonly authorization: RequestAuthorization,
    @Inject(ThreadsService) private readonly threads: ThreadsService,
    @Inject(ThreadCommands) private readonly threadCommands: ThreadCommands,
  ) {
    super();
  }

  async admit(who: AuthContext | undefined, sourceId: string): Promise<AdmittedCopy | undefined> {
    if (!this.authorization.applies(who)) return undefined;
    const source = await this.readable(who, sourceId);
    const threadId = this.threadCommands.newThreadId();
    const asked: Record<string, unknown> = {
      thread_id: threadId,
      metadata: { ...source, thread_id: threadId },
    };
    const create = { resource: 'threads', action: 'create' } as const;
    await this.authorization.authorize(who, create, {}, asked);
    return { threadId, metadata: metadataOf(asked) as JsonObject };
  }

  /** The source's metadata, if the caller may read it. */
  private async readable(who: AuthContext, sourceId: string): Promise<Record<string, unknown>> {
    const read = { resource: 'threads', action: 'read' } as const;
    try {
      await this.authorization.authorize(who, read, { threadId: sourceId }, {});
      return metadataOf(await this.threads.get(sourceId));
    } catch (error) {
      if (error instanceof DomainError && error.code === 'not_found') {
        throw conflict('Thread not found');
      }
      throw error;
    }
  }
}
