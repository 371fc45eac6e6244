import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { dirname } from 'node:path';
import { Application } from '../application/application.js';
import { watchSources } from '../application/source-watcher.js';
import { AssistantsService } from '../assistants/assistants.service.js';
import { ServedRoutes } from '../http/served-routes.js';
import { UiBundles } from '../ui/ui-bundles.js';

/** Whether the application is served anew when its files change (`berth dev`). */
export const RELOAD_ON_CHANGE = Symbol('RELOAD_ON_CHANGE');

/**
 * `berth dev`: after the application's files change, loads it again and serves the new graphs,
 * routes, default assistants and UI bundles; code that fails to load leaves the last good one
 * served.
 */
@Injectable()
export class SourceReloader implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('reload');
  private watcher: { close(): void } | undefined;

  constructor(
    @Inject(RELOAD_ON_CHANGE) private readonly enabled: boolean,
    @Inject(Application) private readonly application: Application,
    @Inject(AssistantsService) private readonly assistants: AssistantsService,
    @Inject(ServedRoutes) private readonly routes: ServedRoutes,
    @Inject(UiBundles) private readonly ui: UiBundles,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.enabled) return;
    this.watcher = watchSources(
      dirname(this.application.config.configFile),
      (changed) => this.reload(changed),
      (error) => {
        this.logger.error(error instanceof Error ? error.message : String(error));
      },
    );
  }

  onModuleDestroy(): void {
    this.watcher?.close();
  }

  private async reload(changed: readonly string[]): Promise<void> {
    const outcome = await this.application.reload();
    if (!outcome.reloaded) {
      this.logger.error(
        `The change to ${changed.join(', ')} is not served (the code before it still is): ${outcome.reason ?? ''}`,
      );
      return;
    }
    await this.routes.load();
    const uiProblems = this.ui.load(this.application.config.ui, this.application.config.dir);
    await this.assistants.ensureDefaults(new Date().toISOString());
    for (const problem of await uiProblems) this.logger.error(problem);
    this.logger.log(
      `Reloaded after a change to ${changed.join(', ')} (graphs: ${this.application.graphIds().join(', ')})`,
    );
  }
}
