import { Global, Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { AssistantsModule } from '../assistants/assistants.module.js';
import { CronsModule } from '../crons/crons.module.js';
import { RunsModule } from '../runs/runs.module.js';
import { ThreadCopyAdmission } from '../threads/thread-copy-admission.js';
import { ThreadsModule } from '../threads/threads.module.js';
import { AuthorizationInterceptor } from './authorization.interceptor.js';
import { RequestAuthorization } from './request-authorization.js';
import { AuthorizedThreadCopy } from './thread-copy-admission.js';

/**
 * The application's Auth handler on every request, over every feature's resources and owners;
 * global, since it stands above the features and some of their routes ask it (a thread's copy).
 */
@Global()
@Module({
  imports: [ThreadsModule, AssistantsModule, RunsModule, CronsModule],
  providers: [
    RequestAuthorization,
    { provide: ThreadCopyAdmission, useClass: AuthorizedThreadCopy },
    { provide: APP_INTERCEPTOR, useClass: AuthorizationInterceptor },
  ],
  exports: [RequestAuthorization, ThreadCopyAdmission],
})
export class AuthorizationModule {}
