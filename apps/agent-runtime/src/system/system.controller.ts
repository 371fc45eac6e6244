import { Returns, ReturnsHealth } from '#libs/http';
import {
  PERSISTENCE,
  processHealth,
  type Persistence,
  type ProcessHealth,
} from '#libs/persistence';
import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Application } from '../application/application.js';
import {
  publicRuntimeInfo,
  runtimeInfo,
  type PublicRuntimeInfo,
  type RuntimeInfo,
} from './runtime-info.js';

@Controller()
export class SystemController {
  constructor(
    @Inject(Application) private readonly application: Application,
    @Inject(PERSISTENCE) private readonly persistence: Persistence,
  ) {}

  /**
   * 503 while the database cannot be reached (docs/operations.md) or a read model is stuck on an
   * event it cannot apply (docs/projections.md).
   */
  @ReturnsHealth()
  @Get('ok')
  async ok(@Res({ passthrough: true }) reply: FastifyReply): Promise<ProcessHealth> {
    const health = await processHealth(this.persistence.runners);
    if (!health.ok) void reply.status(503);
    return health;
  }

  /** Answers without credentials too (an open path): then versions and flags only. */
  @Returns('Info')
  @Get('info')
  info(@Req() request: FastifyRequest): RuntimeInfo | PublicRuntimeInfo {
    if (request.berthRefusal) return publicRuntimeInfo(this.application);
    return runtimeInfo(this.application);
  }
}
