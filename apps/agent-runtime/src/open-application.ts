import type { Logger } from '#libs/logging';
import type { Persistence } from '#libs/persistence';
import { Application } from './application/application.js';
import { GraphsNotLoadedError } from './application/graphs-not-loaded-error.js';
import type { CustomAuth } from './auth/custom-auth.js';
import { ServedRoutes } from './http/served-routes.js';
import type { RuntimeConfig } from './runtime.config.js';
import { UiBundles } from './ui/ui-bundles.js';

/**
 * The application's graphs, routes and Auth handler, with what failed to load said; its UI
 * bundles are being made meanwhile (what fails is said once they are done).
 */
export async function openApplication(
  config: RuntimeConfig,
  persistence: Persistence,
  logger: Logger,
): Promise<{
  application: Application;
  routes: ServedRoutes;
  customAuth: CustomAuth | undefined;
  ui: UiBundles;
}> {
  const application = await Application.open(
    config.graphConfigPath,
    persistence.eventStore,
    process.env,
  );
  for (const warning of application.config.warnings) {
    logger.warn(`${application.config.configFile}: ${warning}`);
  }
  for (const [graphId, reason] of application.failedGraphs()) {
    logger.error(`graph "${graphId}" is not served: ${reason}`);
  }
  const failed = application.failedGraphs();
  if (config.everyGraphRequired && failed.size > 0) {
    await application.close();
    throw new GraphsNotLoadedError(application.config.configFile, failed);
  }
  const routes = new ServedRoutes(application);
  const customRoutes = await routes.load();
  if (typeof customRoutes === 'string') logger.error(customRoutes);
  const customAuth = await application.customAuth();
  const ui = new UiBundles();
  void ui.load(application.config.ui, application.config.dir).then((problems) => {
    for (const problem of problems) logger.error(problem);
  });
  return { application, routes, customAuth, ui };
}
