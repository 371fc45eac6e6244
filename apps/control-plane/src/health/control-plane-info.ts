import { formatLogPosition, PostgresEventStore } from '#libs/event-store';
import type { PlatformResources } from '../platform-resources.js';

/** `GET /info`: which stores this control plane uses, and how far each projection has read. */
export interface ControlPlaneInfo {
  readonly service: 'berth-control-plane';
  readonly event_store: 'postgres' | 'eventstoredb';
  readonly database: 'embedded' | 'external';
  readonly projections: { readonly name: string; readonly position: string }[];
}

export function controlPlaneInfo(resources: PlatformResources): ControlPlaneInfo {
  const { database, eventStore, runners } = resources;
  return {
    service: 'berth-control-plane',
    event_store: eventStore instanceof PostgresEventStore ? 'postgres' : 'eventstoredb',
    database: database.embedded ? 'embedded' : 'external',
    projections: runners.map((runner) => ({
      name: runner.projection.name,
      position: formatLogPosition(runner.position),
    })),
  };
}
