import { createHmac, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type pg from 'pg';
import { DataSource, type Repository } from 'typeorm';
import { DomainError, notFound } from '#libs/domain';
import { ReadModelFreshness } from '#libs/persistence';
import { PG_POOL } from '../control-plane.tokens.js';
import type { PageQueryDto } from '../deployments/deployments.dto.js';
import type { Page } from '../deployments/deployment-queries.service.js';
import type { TracedRunsDto } from './tracing.dto.js';
import { TracingProjectEntity, type TracingProjectRow } from './tracing.entities.js';
import { bearerToken } from './tracing-ingest-auth.js';

export type TracedRun = {
  run_id: string;
  thread_id: string | null;
  assistant_id: string | null;
  status: string;
  attempt: number | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
};

/** A tracing project as `GET /v1/tracing-projects` lists it. */
export interface TracingProject {
  readonly id: string;
  readonly name: string;
  readonly deployment_id: string;
  readonly created_at: Date;
  readonly deployment_deleted_at: Date | null;
  readonly run_count: number;
}

const DEFAULT_LIMIT = 20;

export class TracingTokens {
  constructor(private readonly key: Buffer) {}

  /** The token a deployment's runtime presents to record runs in its project, and only there. */
  tokenOf(projectId: string): string {
    return createHmac('sha256', this.key).update(projectId).digest('hex');
  }

  accepts(projectId: string, token: string): boolean {
    const expected = Buffer.from(this.tokenOf(projectId), 'hex');
    const given = Buffer.from(token, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}

@Injectable()
export class TracingService {
  private readonly projects: Repository<TracingProjectRow>;

  constructor(
    @Inject(DataSource) dataSource: DataSource,
    @Inject(PG_POOL) private readonly pool: pg.Pool,
    @Inject(ReadModelFreshness) private readonly freshness: ReadModelFreshness,
    @Inject(TracingTokens) private readonly tokens: TracingTokens,
  ) {
    this.projects = dataSource.getRepository(TracingProjectEntity);
  }

  async list(tenantId: string, page: PageQueryDto): Promise<Page<TracingProject>> {
    const offset = page.offset ?? 0;
    await this.freshness.catchUp('tracing_projects');
    const { rows } = await this.pool.query<TracingProject>(
      `select p.project_id as id, p.name, p.deployment_id, p.created_at, p.deployment_deleted_at,
              (select count(*)::int from traced_runs r where r.project_id = p.project_id) as run_count
         from tracing_projects p where p.tenant_id = $1
        order by p.created_at desc, p.project_id desc limit $2 offset $3`,
      [tenantId, page.limit ?? DEFAULT_LIMIT, offset],
    );
    return { resources: rows, offset: offset + rows.length };
  }

  async runs(tenantId: string, projectId: string, page: PageQueryDto): Promise<Page<TracedRun>> {
    const offset = page.offset ?? 0;
    await this.freshness.catchUp('tracing_projects');
    const project = await this.projects.findOneBy({ project_id: projectId });
    if (!project || project.tenant_id !== tenantId) {
      throw notFound(`Tracing project ${projectId} not found`);
    }
    const { rows } = await this.pool.query<TracedRun>(
      `select run_id, thread_id, assistant_id, status, attempt, created_at, started_at, finished_at
         from traced_runs where project_id = $1
        order by created_at desc, run_id desc limit $2 offset $3`,
      [projectId, page.limit ?? DEFAULT_LIMIT, offset],
    );
    return { resources: rows, offset: offset + rows.length };
  }

  /** Runs a deployment's runtime reports, with its project's token as `Authorization: Bearer`. */
  async recordReported(
    projectId: string,
    authorization: string | undefined,
    body: TracedRunsDto,
  ): Promise<{ recorded: number }> {
    // Checked as the request arrived too (tracing-ingest-auth.ts), before its body was.
    const token = bearerToken(authorization);
    if (!token || !this.tokens.accepts(projectId, token)) {
      throw new DomainError('unauthorized', 'Invalid tracing token for this project');
    }
    const runs = body.runs.map((run) => ({
      run_id: run.run_id,
      thread_id: run.thread_id ?? null,
      assistant_id: run.assistant_id ?? null,
      status: run.status,
      attempt: run.attempt ?? null,
      created_at: run.created_at,
      started_at: run.started_at ?? null,
      finished_at: run.finished_at ?? null,
    }));
    return { recorded: await this.record(projectId, runs) };
  }

  /** Idempotent: a run reported again (a retried POST, a later attempt) updates its record. */
  async record(projectId: string, runs: readonly TracedRun[]): Promise<number> {
    if (runs.length === 0) return 0;
    await this.pool.query(
      `insert into traced_runs
         (run_id, project_id, thread_id, assistant_id, status, attempt, created_at, started_at, finished_at)
       select r.run_id, $1, r.thread_id, r.assistant_id, r.status, r.attempt, r.created_at, r.started_at, r.finished_at
         from jsonb_to_recordset($2::jsonb) as r(
           run_id uuid, thread_id uuid, assistant_id text, status text, attempt int,
           created_at timestamptz, started_at timestamptz, finished_at timestamptz)
       on conflict (run_id) do update set
         status = excluded.status, attempt = excluded.attempt, started_at = excluded.started_at,
         finished_at = excluded.finished_at, received_at = now()`,
      [projectId, JSON.stringify(runs)],
    );
    return runs.length;
  }
}
