import { EventStore, foldCacheOf, handleCommand, type JsonObject } from '#libs/event-store';
import type { DeploymentCommand } from '../deployments/domain/deployment.commands.js';
import { deploymentDecider } from '../deployments/domain/deployment.decider.js';
import { deploymentStream } from '../deployments/domain/deployment.events.js';
import {
  TERMINAL_REVISION_STATUSES,
  type DeploymentState,
  type RevisionState,
} from '../deployments/domain/deployment.state.js';
import { LOCAL_LISTENER_ID } from '../listeners/listener-directory.js';

const ACTOR: JsonObject = { actor: { kind: 'listener', listener_id: LOCAL_LISTENER_ID } };
/** Positions written here and not yet seen come back: past this many, they are forgotten. */
const MAX_UNSEEN_WRITES = 10_000;

/** How the reconciler reads a deployment and records what it did, as the local listener. */
export class DeploymentWriter {
  /**
   * Each deployment as this writer knows it. It wrote most of it, so a command decides on what is
   * kept without reading, and a load reads only what others appended since.
   */
  private readonly folds = foldCacheOf(deploymentDecider, 1_000, true);
  /** `<deployment id>@<stream position>` of each event appended here, until the log returns it. */
  private readonly unseenWrites = new Set<string>();

  constructor(private readonly store: EventStore) {}

  async load(deploymentId: string): Promise<DeploymentState> {
    return (await this.folds.load(this.store, deploymentStream(deploymentId))).state;
  }

  /**
   * Whether this writer appended the deployment's event at `position` (told once per event). Its
   * own events need no reconcile: the code that wrote one goes on from there. An event it only
   * read does: the reconcile that read it may have been past the point of acting on it.
   */
  wrote(deploymentId: string, position: number): boolean {
    return this.unseenWrites.delete(`${deploymentId}@${position}`);
  }

  async command(deploymentId: string, command: DeploymentCommand): Promise<DeploymentState> {
    const { state, events, appended } = await handleCommand(
      this.store,
      deploymentStream(deploymentId),
      deploymentDecider,
      command,
      ACTOR,
      this.folds,
    );
    if (appended) {
      if (this.unseenWrites.size > MAX_UNSEEN_WRITES) this.unseenWrites.clear();
      for (let back = 0; back < events.length; back += 1) {
        this.unseenWrites.add(`${deploymentId}@${appended.streamPosition - back}`);
      }
    }
    return state;
  }

  setStatus(
    deploymentId: string,
    revisionId: string,
    status: RevisionState['status'],
    message: string | null = null,
  ): Promise<DeploymentState> {
    return this.command(deploymentId, {
      kind: 'revision_status',
      revision_id: revisionId,
      status,
      message,
      now: new Date().toISOString(),
    });
  }
}

/** Revisions waiting for work, the latest request last. */
export function pendingRevisions(state: DeploymentState): RevisionState[] {
  return state.revisions
    .filter((revision) => !TERMINAL_REVISION_STATUSES.has(revision.status))
    .sort((a, b) => a.requested_at_position - b.requested_at_position);
}

/** The revision to work on: the one requested last. */
export function nextRequested(state: DeploymentState): RevisionState | undefined {
  return pendingRevisions(state).at(-1);
}
