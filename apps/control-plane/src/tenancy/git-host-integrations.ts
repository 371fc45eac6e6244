import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';

/**
 * The local git_host integration: the platform clones repositories itself (remote URLs; local
 * paths only where the operator allows them), so each tenant has exactly one integration, with a
 * stable id.
 */
@Injectable()
export class GitHostIntegrations {
  idOf(tenantId: string): string {
    const hex = createHash('sha256').update(`git_host-integration:${tenantId}`).digest('hex');
    const variant = ((parseInt(hex.slice(16, 17), 16) & 0x3) | 0x8).toString(16);
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  }
}
