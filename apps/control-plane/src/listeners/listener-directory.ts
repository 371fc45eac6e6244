import { Injectable, Inject } from '@nestjs/common';
import { DataSource, type Repository } from 'typeorm';
import type { JsonObject } from '#libs/event-store';
import { ReadModelFreshness } from '#libs/persistence';
import type { ListenerInfo } from './listener-info.js';
import { ListenerEntity, type ListenerRow } from './listener.entity.js';

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
};

const LOCAL_LISTENER: ListenerResource = {
  id: LOCAL_LISTENER_ID,
  name: 'local',
  compute_type: 'local',
  compute_config: {},
  built_in: true,
  created_at: LOCAL_LISTENER_CREATED_AT,
};

export function listenerResourceOf(row: ListenerRow): ListenerResource {
  return {
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
  ) {
    this.rows = dataSource.getRepository(ListenerEntity);
  }

  async list(tenantId: string): Promise<ListenerResource[]> {
    await this.freshness.catchUp('listeners');
    const rows = await this.rows.find({
      where: { tenant_id: tenantId },
      order: { created_at: 'ASC' },
    });
    return [LOCAL_LISTENER, ...rows.map(listenerResourceOf)];
  }

  async find(tenantId: string, listenerId: string): Promise<ListenerInfo> {
    if (listenerId === LOCAL_LISTENER_ID) return { id: listenerId, compute_type: 'local' };
    await this.freshness.catchUp('listeners');
    const row = await this.rows.findOneBy({ listener_id: listenerId });
    return row && row.tenant_id === tenantId
      ? { id: listenerId, compute_type: row.compute_type }
      : null;
  }
}
