import { setTimeout as sleep } from 'node:timers/promises';
import { listenerSealingContext } from '#libs/listener-protocol';
import { ApiError } from '#libs/control-plane-client';
import { openSealed } from '#libs/sealed-box';
import { applyPlan, tearDownPlan } from '../domain/apply-plan.js';
import type { AssignedDeployment, ListenerReport } from '#libs/listener-protocol';
import {
  clusterRevisionOf,
  namespaceOf,
  revisionSecretsOf,
} from '../domain/cluster-revision-of.js';
import { renderRevision, type RenderedObject } from '../domain/render/render-revision.js';
import { effectiveResources } from '../domain/resource-defaults.js';
import { rolloutOutcome } from '../domain/rollout-outcome.js';
import { renderProblems } from '../domain/validate-rendered.js';
import { isMomentary, messageOf, RevisionFailure } from './failures.js';
import type { ListenerDeps } from './listener-deps.js';
import { retrying } from './retrying.js';

/** One revision's objects, ready to apply. */
interface RenderedRevision {
  readonly namespace: string;
  readonly revisionId: string;
  readonly objects: readonly RenderedObject[];
}

/**
 * The three things the listener does for a deployment (see domain/deployment-task.ts), each from
 * its start: applying is idempotent and reports of a status a revision has are no-ops, so a task
 * tried again, or again after a restart, changes nothing that was done.
 */
export class DeploymentTasks {
  constructor(private readonly deps: ListenerDeps) {}

  /** Applies a requested revision, reports DEPLOYING, follows its rollout, reports the outcome. */
  async rollOut(
    assigned: AssignedDeployment,
    signal: AbortSignal,
    onApplied: (revisionId: string) => void,
  ): Promise<void> {
    const revision = await this.render(assigned);
    const taken = await this.report(
      assigned,
      { status: 'DEPLOYING', revision_id: revision.revisionId },
      signal,
    );
    // Refused: the revision moved on meanwhile (a newer one, a PATCH); the next answer says what to do.
    if (!taken) return;
    const plan = await this.apply(assigned, revision);
    onApplied(revision.revisionId);
    this.deps.log.info(
      { deployment_id: assigned.deployment_id, revision_id: revision.revisionId },
      `applied ${plan.apply.length} objects, pruned ${plan.prune.length}; following the rollout`,
    );
    for (;;) {
      const workloads = await this.deps.cluster.workloads(
        revision.namespace,
        plan.waitFor,
        revision.revisionId,
      );
      const outcome = rolloutOutcome(workloads);
      if (outcome.kind === 'failed') throw new RevisionFailure(outcome.reason);
      if (outcome.kind === 'available') break;
      await sleep(this.deps.followEveryMs, undefined, { signal });
    }
    await this.report(assigned, { status: 'DEPLOYED', revision_id: revision.revisionId }, signal);
  }

  /** Applies the live revision again: after a restart, or to roll back from a failed one. */
  async keepApplied(
    assigned: AssignedDeployment,
    onApplied: (revisionId: string) => void,
  ): Promise<void> {
    const revision = await this.render(assigned);
    await this.apply(assigned, revision);
    onApplied(revision.revisionId);
  }

  /** Deletes everything of a deleted deployment, its database too, and reports TORN_DOWN. */
  async tearDown(assigned: AssignedDeployment, signal: AbortSignal): Promise<void> {
    const placed = namespaceOf(assigned, this.deps.placement);
    if ('namespace' in placed) {
      const observed = await this.deps.cluster.observe(placed.namespace, assigned.deployment_id);
      await this.deps.cluster.remove(placed.namespace, tearDownPlan(observed));
    }
    await this.deps.databases.dropped(assigned.deployment_id);
    await this.report(assigned, { status: 'TORN_DOWN' }, signal);
  }

  /** Reports a revision's failure, with why. */
  async reportFailure(
    assigned: AssignedDeployment,
    failure: RevisionFailure,
    signal: AbortSignal,
  ): Promise<void> {
    const revisionId = assigned.revision?.revision_id;
    if (!revisionId) return;
    this.deps.log.warn(
      { deployment_id: assigned.deployment_id, revision_id: revisionId },
      `revision failed: ${failure.message}`,
    );
    await this.report(
      assigned,
      { status: 'DEPLOY_FAILED', revision_id: revisionId, message: failure.message },
      signal,
    );
  }

  private async render(assigned: AssignedDeployment): Promise<RenderedRevision> {
    const revision = assigned.revision;
    if (!revision) throw new RevisionFailure('the assignment carries no revision');
    const placed = namespaceOf(assigned, this.deps.placement);
    if ('problem' in placed) throw new RevisionFailure(placed.problem);
    const context = listenerSealingContext(
      this.deps.listenerId,
      assigned.deployment_id,
      revision.revision_id,
    );
    let opened: string;
    try {
      opened = openSealed(this.deps.privateKey, revision.sealed_secrets, context);
    } catch (error) {
      throw new RevisionFailure(
        `the revision's secrets do not open with this listener's key (${messageOf(error)})`,
      );
    }
    const secrets = revisionSecretsOf(opened);
    if (!secrets)
      throw new RevisionFailure("the revision's sealed secrets are not [{name, value}]");
    const deployment = {
      id: assigned.deployment_id,
      name: assigned.name,
      namespace: placed.namespace,
    };
    const shaped = clusterRevisionOf({
      assigned,
      revision,
      namespace: placed.namespace,
      secrets,
      ingress: this.deps.placement.ingress,
    });
    if ('problem' in shaped) throw new RevisionFailure(shaped.problem);
    const database = await this.deps.databases.databaseOf(
      deployment,
      effectiveResources(shaped.revision.resources),
    );
    const objects = renderRevision({ ...shaped.revision, database });
    const problems = renderProblems(objects);
    if (problems.length > 0) {
      throw new RevisionFailure(
        `the rendered objects are not valid: ${problems.map((p) => `${p.object}: ${p.problem}`).join('; ')}`,
      );
    }
    return { namespace: placed.namespace, revisionId: revision.revision_id, objects };
  }

  private async apply(assigned: AssignedDeployment, revision: RenderedRevision) {
    const { cluster } = this.deps;
    const observed = await cluster.observe(revision.namespace, assigned.deployment_id);
    const plan = applyPlan(revision.objects, observed);
    await cluster.apply(plan.apply);
    await cluster.remove(revision.namespace, plan.prune);
    return plan;
  }

  /**
   * Sends a report until the control plane takes it (true); one it refuses for good is logged
   * (false): the revision moved on meanwhile.
   */
  private async report(
    assigned: AssignedDeployment,
    report: Omit<ListenerReport, 'deployment_id'>,
    signal: AbortSignal,
  ): Promise<boolean> {
    const { client, listenerId, log, retryMs } = this.deps;
    const fields = { deployment_id: assigned.deployment_id, revision_id: report.revision_id };
    try {
      await retrying(
        () => client.report(listenerId, { deployment_id: assigned.deployment_id, ...report }),
        {
          delays: retryMs,
          signal,
          onRetry: (error, wait) => {
            log.warn(
              fields,
              `reporting ${report.status} failed, again in ${wait} ms: ${messageOf(error)}`,
            );
          },
        },
      );
    } catch (error) {
      if (!(error instanceof ApiError) || isMomentary(error)) throw error;
      log.warn(fields, `the control plane refused ${report.status}: ${messageOf(error)}`);
      return false;
    }
    log.info(fields, `reported ${report.status}`);
    return true;
  }
}
