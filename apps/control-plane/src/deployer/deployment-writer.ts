import { batchDecider } from '#libs/domain';
import { AggregateCommands, EventStore, foldCacheOf, type JsonObject } from '#libs/event-store';
import type { ListenerCommand } from '../deployments/domain/deployment-listener.decide.js';
import { deploymentDecider } from '../deployments/domain/deployment.decider.js';
import { deploymentStream } from '../deployments/domain/deployment.events.js';
import type { DeploymentState } from '../deployments/domain/deployment.state.js';
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
  /** A step's outcome: its commands decided in order, their events appended at once. */
  private readonly outcomes;

  constructor(private readonly store: EventStore) {
    this.outcomes = new AggregateCommands({
      store,
      decider: batchDecider(deploymentDecider),
      streamOf: deploymentStream,
      folds: this.folds,
    });
  }

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

  /** Records one step's outcome: its commands decided in order, their events appended at once. */
  async record(deploymentId: string, commands: readonly ListenerCommand[]): Promise<void> {
    if (commands.length === 0) return;
    const { events, appended } = await this.outcomes.handle(deploymentId, commands, {
      metadata: ACTOR,
    });
    if (!appended) return;
    if (this.unseenWrites.size > MAX_UNSEEN_WRITES) this.unseenWrites.clear();
    for (let back = 0; back < events.length; back += 1) {
      this.unseenWrites.add(`${deploymentId}@${appended.streamPosition - back}`);
    }
  }
}
