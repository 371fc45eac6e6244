import { Injectable, Inject } from '@nestjs/common';
import { DataSource, type Repository } from 'typeorm';
import type { JsonObject } from '#libs/event-store';
import { ReadModelFreshness } from '#libs/persistence';
import type { ListenerInfo } from './listener-info.js';
import { ListenerEntity, type ListenerRow } from './listener.entity.js';
import { ListenerPresence } from './listener-presence.js';

/** The built-in listener: it builds and runs deployments as processes on this machine. */
export const LOCAL_LISTENER_ID = '6c6f6361-6c00-4000-8000-000000000000';
const LOCAL_LISTENER_CREATED_AT = '2026-01-01T00:00:00.000Z';

export type ListenerResource = {
  id: string;
  name: string;
  compute_type: 'local' | 'cluster';
  compute_config: JsonObject;
  built_in: boolean;
  created_at: string;
  /** A cluster listener polled lately (the built-in one always is). */
  connected: boolean;
  last_seen_at: string | null;
};

const LOCAL_LISTENER: ListenerResource = {
  id: LOCAL_LISTENER_ID,
  name: 'local',
  compute_type: 'local',
  compute_config: {},
  built_in: true,
  created_at: LOCAL_LISTENER_CREATED_AT,
  connected: true,
  last_seen_at: null,
};

export function listenerResourceOf(
  row: ListenerRow,
  presence: Pick<ListenerResource, 'connected' | 'last_seen_at'> = {
    connected: false,
    last_seen_at: null,
  },
): ListenerResource {
  return {
    ...presence,
    id: row.listener_id,
    name: row.name,
    compute_type: row.compute_type,
    compute_config: row.compute_config,
    built_in: false,
    created_at: row.created_at.toISOString(),
  };
}

@Injectable()
export class ListenerDirectory {
  private readonly rows: Repository<ListenerRow>;

  constructor(
    @Inject(DataSource) dataSource: DataSource,
    @Inject(ReadModelFreshness) private readonly freshness: ReadModelFreshness,
    @Inject(ListenerPresence) private readonly presence: ListenerPresence,
  ) {
    this.rows = dataSource.getRepository(ListenerEntity);
  }

  async list(tenantId: string): Promise<ListenerResource[]> {
    await this.freshness.catchUp('listeners');
    const rows = await this.rows.find({
      where: { tenant_id: tenantId },
      order: { created_at: 'ASC' },
    });
    const withPresence = (row: ListenerRow) =>
      listenerResourceOf(row, this.presence.of(row.listener_id));
    return [LOCAL_LISTENER, ...rows.map(withPresence)];
  }

  /** The tenant's listener of that id, with its compute config; undefined for another's. */
  async resource(tenantId: string, listenerId: string): Promise<ListenerResource | undefined> {
    if (listenerId === LOCAL_LISTENER_ID) return LOCAL_LISTENER;
    await this.freshness.catchUp('listeners');
    const row = await this.rows.findOneBy({ listener_id: listenerId });
    return row && row.tenant_id === tenantId
      ? listenerResourceOf(row, this.presence.of(row.listener_id))
      : undefined;
  }

  async find(tenantId: string, listenerId: string): Promise<ListenerInfo> {
    const listener = await this.resource(tenantId, listenerId);
    return listener ? { id: listener.id, compute_type: listener.compute_type } : null;
  }
}
