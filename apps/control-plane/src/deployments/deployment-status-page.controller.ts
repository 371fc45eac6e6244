import { Redirects } from '#libs/http';
import { Controller, Get, Param, ParseUUIDPipe, Req, Res, Inject } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { notFound } from '#libs/domain';
import { DeploymentQueries } from './deployment-queries.service.js';

/** The status URL the official deploy CLI prints: `/o/{tenant_id}/host/deployments/{id}`. */
export const STATUS_PAGE_PATH = /^\/o\/[^/]+\/host\/deployments\/[^/]+\/?$/;

/** Where the console shows a deployment (its routes live in the URL's hash). */
export function consolePageOf(deploymentId: string): string {
  return `/#/deployments/${encodeURIComponent(deploymentId)}`;
}

/**
 * The status URL the official deploy CLI prints. Opened in a browser (no key), it leads to the
 * console's page of the deployment, which asks for the key before it shows anything; asked with a
 * key, to the deployment's resource.
 */
@Controller('o/:tenant_id/host/deployments')
export class DeploymentStatusPageController {
  constructor(@Inject(DeploymentQueries) private readonly deployments: DeploymentQueries) {}

  @Redirects()
  @Get(':deployment_id')
  async redirect(
    @Req() request: FastifyRequest,
    @Param('tenant_id') tenantId: string,
    @Param('deployment_id', ParseUUIDPipe) deploymentId: string,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const { caller } = request;
    if (!caller) {
      await reply.redirect(consolePageOf(deploymentId), 302);
      return;
    }
    if (tenantId !== caller.tenant_id) throw notFound(`Deployment ${deploymentId} not found`);
    await this.deployments.get(caller, deploymentId);
    await reply.redirect(`/v2/deployments/${deploymentId}`, 302);
  }
}
