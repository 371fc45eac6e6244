import { Module, type DynamicModule } from '@nestjs/common';
import { EventStore } from '#libs/event-store';
import { PLATFORM_RESOURCES } from './control-plane.tokens.js';
import { HealthController } from './health/health.controller.js';
import type { PlatformResources } from './platform-resources.js';

@Module({})
export class ControlPlaneModule {
  static forRoot(resources: PlatformResources): DynamicModule {
    return {
      module: ControlPlaneModule,
      controllers: [HealthController],
      providers: [
        { provide: PLATFORM_RESOURCES, useValue: resources },
        { provide: EventStore, useValue: resources.eventStore },
      ],
    };
  }
}
