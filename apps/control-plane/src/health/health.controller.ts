import { Returns } from '#libs/http';
import { Controller, Get, Inject } from '@nestjs/common';
import { PLATFORM_RESOURCES } from '../control-plane.tokens.js';
import type { PlatformResources } from '../platform-resources.js';
import { controlPlaneInfo, type ControlPlaneInfo } from './control-plane-info.js';

@Controller()
export class HealthController {
  constructor(@Inject(PLATFORM_RESOURCES) private readonly resources: PlatformResources) {}

  @Returns('Ok')
  @Get('ok')
  ok(): { ok: true } {
    return { ok: true };
  }

  @Returns('ControlPlaneInfo')
  @Get('info')
  info(): ControlPlaneInfo {
    return controlPlaneInfo(this.resources);
  }
}
