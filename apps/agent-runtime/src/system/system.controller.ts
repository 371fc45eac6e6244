import { Returns } from '#libs/http';
import { Controller, Get, Inject } from '@nestjs/common';
import { Application } from '../application/application.js';
import { runtimeInfo, type RuntimeInfo } from './runtime-info.js';

@Controller()
export class SystemController {
  constructor(@Inject(Application) private readonly application: Application) {}

  @Returns('Ok')
  @Get('ok')
  ok(): { ok: true } {
    return { ok: true };
  }

  @Returns('Info')
  @Get('info')
  info(): RuntimeInfo {
    return runtimeInfo(this.application);
  }
}
