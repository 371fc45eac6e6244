import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { notFound } from '#libs/domain';
import { AggregateCommands, EventStore } from '#libs/event-store';
import {
  clusterReportDecider,
  type ClusterReport,
} from '../../deployments/domain/cluster-listener.js';
import { deploymentStream } from '../../deployments/domain/deployment.events.js';
import { findRevision } from '../../deployments/domain/deployment.state.js';
import { ListenerDirectory } from '../../listeners/listener-directory.js';
import { SecretVault } from '../../secrets/secret-vault.js';
import { ReportProgress, type ReportedProgress } from './report-progress.command.js';

/**
 * A cluster listener's report, recorded on the deployment's stream in the listener's name: the
 * revision's status moves (as the table allows them), its activation, the deployment's end.
 */
@CommandHandler(ReportProgress)
export class ReportProgressHandler implements ICommandHandler<ReportProgress> {
  private readonly outcomes;

  constructor(
    @Inject(EventStore) store: EventStore,
    @Inject(ListenerDirectory) private readonly listeners: ListenerDirectory,
    @Inject(SecretVault) private readonly vault: SecretVault,
  ) {
    this.outcomes = new AggregateCommands({
      store,
      decider: clusterReportDecider,
      streamOf: deploymentStream,
    });
  }

  async execute({ caller, listenerId, report }: ReportProgress): Promise<ReportedProgress> {
    const listener = await this.listeners.resource(caller.tenant_id, listenerId);
    if (!listener || listener.compute_type !== 'cluster') {
      throw notFound(`Listener ${listenerId} not found`);
    }
    const reported: ClusterReport =
      report.status === 'TORN_DOWN'
        ? { kind: 'torn_down' }
        : {
            kind: 'revision',
            revision_id: report.revision_id ?? '',
            status: report.status,
            message: report.message ?? null,
          };
    const now = new Date().toISOString();
    const { state } = await this.outcomes.handle(
      report.deployment_id,
      {
        deployment_id: report.deployment_id,
        report: reported,
        tenant_id: caller.tenant_id,
        listener_id: listenerId,
        now,
      },
      { metadata: { actor: { kind: 'listener', listener_id: listenerId } } },
    );
    if (reported.kind === 'torn_down') {
      await this.vault.forget(report.deployment_id);
      return { deployment_id: report.deployment_id, revision_id: null, status: 'DELETED' };
    }
    const revision = findRevision(state, reported.revision_id);
    return {
      deployment_id: report.deployment_id,
      revision_id: reported.revision_id,
      status: revision?.status ?? report.status,
    };
  }
}
