import { domainEventOf, notFound } from '#libs/domain';
import { Injectable, Inject } from '@nestjs/common';
import { EventStore, type JsonObject, type RecordedEvent } from '#libs/event-store';
import type { Caller } from '../../tenancy/tenant-directory.js';
import { deploymentStream, type DeploymentEvent } from '../domain/deployment.events.js';
import type { SealedSecret } from '../../secrets/sealed-secret.js';
import { timelineOf, type TimelineCard } from './deployment-timeline.js';

export type HistoryEntry = {
  seq: number;
  event: string;
  recorded_at: string;
  actor: JsonObject | null;
  revision_id: string | null;
  changes: JsonObject;
};

export type DeploymentHistoryAnswer = { resources: HistoryEntry[]; timeline: TimelineCard[] };

/** The revision id has its own field in an entry. */
function withoutRevisionId(data: JsonObject): JsonObject {
  return Object.fromEntries(Object.entries(data).filter(([key]) => key !== 'revision_id'));
}

const names = (secrets: readonly SealedSecret[]): string[] => secrets.map((secret) => secret.name);

/** What an event changed, as an auditor reads it: secret names, never their sealed values. */
function changesOf(event: DeploymentEvent): JsonObject {
  switch (event.type) {
    case 'DeploymentCreated': {
      const { secrets, ...rest } = event.data;
      return { ...rest, secrets: names(secrets) };
    }
    case 'RevisionCreated': {
      const { secrets, ...rest } = event.data;
      return { ...withoutRevisionId(rest), secrets: names(secrets) };
    }
    case 'DeploymentConfigChanged':
    case 'UploadUrlIssued':
    case 'DeploymentStatusChanged':
    case 'DeploymentUrlAssigned':
    case 'RevisionStatusChanged':
    case 'RevisionSourceResolved':
    case 'RevisionActivated':
    case 'RevisionRedeployRequested':
    case 'DeploymentDeleteRequested':
    case 'DeploymentDeletionStalled':
    case 'DeploymentDeleted': {
      return withoutRevisionId(event.data);
    }
  }
}

function entryOf(recorded: RecordedEvent): HistoryEntry {
  const event = domainEventOf<DeploymentEvent>(recorded);
  const revisionId = recorded.data.revision_id;
  const actor = recorded.metadata.actor;
  return {
    seq: recorded.streamPosition,
    event: recorded.type,
    recorded_at: recorded.recordedAt.toISOString(),
    actor: actor && typeof actor === 'object' && !Array.isArray(actor) ? actor : null,
    revision_id: typeof revisionId === 'string' ? revisionId : null,
    changes: changesOf(event),
  };
}

/** The audit history of a deployment, read from its stream in the log (deleted ones included). */
@Injectable()
export class DeploymentHistory {
  constructor(@Inject(EventStore) private readonly store: EventStore) {}

  /** Its events as recorded (`resources`), and the same history as cards a person reads. */
  async of(caller: Caller, deploymentId: string): Promise<DeploymentHistoryAnswer> {
    const events = await this.store.readStream(deploymentStream(deploymentId));
    const first = events[0];
    if (first?.type !== 'DeploymentCreated' || first.data.tenant_id !== caller.tenant_id) {
      throw notFound(`Deployment ${deploymentId} not found`);
    }
    const resources = events.map(entryOf);
    return { resources, timeline: timelineOf(resources) };
  }
}
