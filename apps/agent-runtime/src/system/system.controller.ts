import { Returns, ReturnsHealth } from '#libs/http';
import {
  PERSISTENCE,
  processHealth,
  type Persistence,
  type ProcessHealth,
} from '#libs/persistence';
import { Controller, Get, Inject, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Application } from '../application/application.js';
import { runtimeInfo, type RuntimeInfo } from './runtime-info.js';

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

  @Returns('Info')
  @Get('info')
  info(): RuntimeInfo {
    return runtimeInfo(this.application);
  }
}
