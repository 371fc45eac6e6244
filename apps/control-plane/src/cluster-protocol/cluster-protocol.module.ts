import { Module } from '@nestjs/common';
import { ListenersModule } from '../listeners/listeners.module.js';
import { ClusterAssignments } from './assignments/cluster-assignments.service.js';
import { ClusterProtocolController } from './cluster-protocol.controller.js';
import { ReportProgressHandler } from './report-progress/report-progress.handler.js';

/**
 * A cluster listener's side of the control plane: its assignments (long-polled, secrets sealed
 * for its key) and its reports on its deployments (see docs/kubernetes.md).
 */
@Module({
  imports: [ListenersModule],
  controllers: [ClusterProtocolController],
  providers: [ClusterAssignments, ReportProgressHandler],
})
export class ClusterProtocolModule {}
