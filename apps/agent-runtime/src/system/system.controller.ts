import { Controller, Get, Inject } from '@nestjs/common';
import { Application } from '../application/application.js';

@Controller()
export class SystemController {
  constructor(@Inject(Application) private readonly application: Application) {}

  @Get('ok')
  ok(): { ok: true } {
    return { ok: true };
  }

  @Get('info')
  info(): Record<string, unknown> {
    return {
      version: '0.1.0',
      langgraph_js_version: this.application.langgraphVersion,
      graphs: this.application.graphIds(),
      failed_graphs: Object.fromEntries(this.application.failedGraphs()),
      flags: { assistants: true, crons: false, langsmith: false },
    };
  }
}
