import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { AssistantsService } from './assistants.service.js';

/** Each served graph's default assistant exists from the app's start. */
@Injectable()
export class DefaultAssistants implements OnApplicationBootstrap {
  constructor(@Inject(AssistantsService) private readonly assistants: AssistantsService) {}

  onApplicationBootstrap(): Promise<void> {
    return this.assistants.ensureDefaults(new Date().toISOString());
  }
}
