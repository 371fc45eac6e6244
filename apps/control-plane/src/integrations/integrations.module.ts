import { Module } from '@nestjs/common';
import { GitHostController } from './git-host.controller.js';
import { GitPushService } from './git-push.service.js';

/** `/v1/integrations/git_host`: the tenant's git host integration, and pushes it reports. */
@Module({
  controllers: [GitHostController],
  providers: [GitPushService],
})
export class IntegrationsModule {}
