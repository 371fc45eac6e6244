import { Injectable, Inject } from '@nestjs/common';
import { EventStore } from '#libs/event-store';
import { followAcrossRevisions, type FollowedLogItem } from './deployment-log-follower.js';
import { logPage, type LogPage } from '../logs/log-page.js';
import type { LogPageQueryDto } from '../logs/log-page.dto.js';
import type { LogType } from '../logs/revision-log.js';
import { RevisionLogs, type LogRecord } from '../logs/revision-logs.js';
import type { Caller } from '../tenancy/tenant-directory.js';
import { DeploymentQueries } from './deployment-queries.service.js';
import { deploymentStream } from './domain/deployment.events.js';

/** A revision's log lines as `GET .../logs` answers them. */
export interface RevisionLogLines {
  readonly revision_id: string | null;
  readonly resources: LogRecord[];
}

/**
 * A revision's log lines as they are written, from the first. Followed for the deployment (no
 * revision named), a new revision's lines follow its announcement.
 */
export interface FollowedLogs {
  readonly revisionId: string;
  readonly items: AsyncIterable<FollowedLogItem>;
}

/**
 * The logs of a deployment's revisions, for its tenant only. A request names a revision, or means
 * the deployment's current one (`undefined`): the active revision, else the latest.
 */
@Injectable()
export class DeploymentLogs {
  constructor(
    @Inject(DeploymentQueries) private readonly deployments: DeploymentQueries,
    @Inject(RevisionLogs) private readonly logs: RevisionLogs,
    @Inject(EventStore) private readonly store: EventStore,
  ) {}

  async read(
    caller: Caller,
    deploymentId: string,
    revisionId: string | undefined,
    type: LogType | undefined,
  ): Promise<RevisionLogLines> {
    const revision = await this.revisionOf(caller, deploymentId, revisionId);
    return {
      revision_id: revision,
      resources: revision ? await this.logs.read(revision, type) : [],
    };
  }

  /** Undefined when the deployment has no revision yet. */
  async follow(
    caller: Caller,
    deploymentId: string,
    revisionId: string | undefined,
    type: LogType | undefined,
    signal: AbortSignal,
  ): Promise<FollowedLogs | undefined> {
    if (revisionId !== undefined) {
      await this.deployments.revision(caller, deploymentId, revisionId);
      return { revisionId, items: linesOf(this.logs.follow(revisionId, type, signal)) };
    }
    // Where the deployment's stream ends before its current revision is read: a revision made
    // after that is announced, even one the read already sees.
    const [last] = await this.store.readStream(deploymentStream(deploymentId), {
      direction: 'backwards',
      maxCount: 1,
    });
    const first = await this.revisionOf(caller, deploymentId, undefined);
    if (!first) return undefined;
    const items = followAcrossRevisions({
      store: this.store,
      logs: this.logs,
      deploymentId,
      first,
      after: last?.streamPosition ?? -1,
      type,
      signal,
    });
    return { revisionId: first, items };
  }

  /** A page of the lines, as the official deploy CLI reads them. */
  async page(
    caller: Caller,
    deploymentId: string,
    revisionId: string | undefined,
    type: LogType,
    query: LogPageQueryDto,
  ): Promise<LogPage> {
    const { resources } = await this.read(caller, deploymentId, revisionId, type);
    return logPage(resources, query);
  }

  /** The revision a request means, once the caller may see it; null when there is none yet. */
  private async revisionOf(
    caller: Caller,
    deploymentId: string,
    revisionId: string | undefined,
  ): Promise<string | null> {
    if (revisionId !== undefined) {
      await this.deployments.revision(caller, deploymentId, revisionId);
      return revisionId;
    }
    const state = await this.deployments.stateOf(caller, deploymentId);
    return state.active_revision_id ?? state.latest_revision_id;
  }
}

async function* linesOf(records: AsyncIterable<LogRecord>): AsyncGenerator<FollowedLogItem> {
  for await (const record of records) yield { kind: 'log', record };
}
