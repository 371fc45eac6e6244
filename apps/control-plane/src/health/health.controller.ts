import { Returns } from '#libs/http';
import { Controller, Get, Inject } from '@nestjs/common';
import { formatLogPosition, PostgresEventStore } from '#libs/event-store';
import { PLATFORM_RESOURCES } from '../control-plane.tokens.js';
import type { PlatformResources } from '../platform-resources.js';

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
  info(): object {
    const { database, eventStore, runners } = this.resources;
    return {
      service: 'berth-control-plane',
      event_store: eventStore instanceof PostgresEventStore ? 'postgres' : 'eventstoredb',
      database: database.embedded ? 'embedded' : 'external',
      projections: runners.map((runner) => ({
        name: runner.projection.name,
        position: formatLogPosition(runner.position),
      })),
    };
  }
}
