import { Redirects } from '#libs/http';
import { Controller, Get, Param, ParseUUIDPipe, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { notFound } from '#libs/domain';
import { CurrentCaller } from '../tenancy/caller.js';
import type { Caller } from '../tenancy/tenant-directory.js';
import { DeploymentQueries } from './deployment-queries.service.js';

/** The status page address the official deploy CLI prints, sent on to the deployment itself. */
@Controller('o/:tenant_id/host/deployments')
export class DeploymentStatusPageController {
  constructor(private readonly deployments: DeploymentQueries) {}

  @Redirects()
  @Get(':deployment_id')
  async redirect(
    @CurrentCaller() caller: Caller,
    @Param('tenant_id') tenantId: string,
    @Param('deployment_id', ParseUUIDPipe) deploymentId: string,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    if (tenantId !== caller.tenant_id) throw notFound(`Deployment ${deploymentId} not found`);
    await this.deployments.get(caller, deploymentId);
    await reply.redirect(`/v2/deployments/${deploymentId}`, 302);
  }
}
