import { Module } from '@nestjs/common';
import { DeploymentsModule } from '../deployments/deployments.module.js';
import { RevisionChangesController } from './revision-changes.controller.js';
import { RevisionChangesService } from './revision-changes.service.js';

/** `/v2/deployments/{id}/revisions/{id}/changes`: what changed between two revisions. */
@Module({
  imports: [DeploymentsModule],
  controllers: [RevisionChangesController],
  providers: [RevisionChangesService],
})
export class RevisionChangesModule {}
