import { Returns, ReturnsHealth } from '#libs/http';
import { processHealth, type ProcessHealth } from '#libs/persistence';
import { Controller, Get, Inject, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { PLATFORM_RESOURCES } from '../control-plane.tokens.js';
import type { PlatformResources } from '../platform-resources.js';
import { controlPlaneInfo, type ControlPlaneInfo } from './control-plane-info.js';
import { WorkerPoolProbe, withWorkerPool } from './worker-pool-probe.js';

@Controller()
export class HealthController {
  private readonly workerPool = new WorkerPoolProbe();

  constructor(@Inject(PLATFORM_RESOURCES) private readonly resources: PlatformResources) {}

  /**
   * 503 while the database cannot be reached (docs/operations.md), a read model is stuck on an
   * event it cannot apply (docs/projections.md) or the thread pool does not answer.
   */
  @ReturnsHealth()
  @Get('ok')
  async ok(@Res({ passthrough: true }) reply: FastifyReply): Promise<ProcessHealth> {
    const [own, pool] = await Promise.all([
      processHealth(this.resources.runners),
      this.workerPool.check(),
    ]);
    const health = withWorkerPool(own, pool);
    if (!health.ok) void reply.status(503);
    return health;
  }

  @Returns('ControlPlaneInfo')
  @Get('info')
  info(): ControlPlaneInfo {
    return controlPlaneInfo(this.resources);
  }
}
