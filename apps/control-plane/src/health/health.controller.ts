import { Returns, ReturnsHealth } from '#libs/http';
import { processHealth, type ProcessHealth } from '#libs/persistence';
import { Controller, Get, Inject, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { PLATFORM_RESOURCES } from '../control-plane.tokens.js';
import type { PlatformResources } from '../platform-resources.js';
import { controlPlaneInfo, type ControlPlaneInfo } from './control-plane-info.js';

@Controller()
export class HealthController {
  constructor(@Inject(PLATFORM_RESOURCES) private readonly resources: PlatformResources) {}

  /**
   * 503 while the database cannot be reached (docs/operations.md) or a read model is stuck on an
   * event it cannot apply (docs/projections.md).
   */
  @ReturnsHealth()
  @Get('ok')
  async ok(@Res({ passthrough: true }) reply: FastifyReply): Promise<ProcessHealth> {
    const health = await processHealth(this.resources.runners);
    if (!health.ok) void reply.status(503);
    return health;
  }

  @Returns('ControlPlaneInfo')
  @Get('info')
  info(): ControlPlaneInfo {
    return controlPlaneInfo(this.resources);
  }
}
