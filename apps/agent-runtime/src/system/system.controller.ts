import { BERTH_VERSION } from '#libs/config';
import { Returns } from '#libs/http';
import { Controller, Get, Inject } from '@nestjs/common';
import { Application } from '../application/application.js';

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
  info(): Record<string, unknown> {
    return {
      version: BERTH_VERSION,
      langgraph_js_version: this.application.langgraphVersion,
      graphs: this.application.graphIds(),
      failed_graphs: Object.fromEntries(this.application.failedGraphs()),
      ...(this.application.reloadError ? { reload_error: this.application.reloadError } : {}),
      flags: { assistants: true, crons: true, langsmith: false },
    };
  }
}
