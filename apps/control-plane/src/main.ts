import 'reflect-metadata';
import { describeDatabaseUrl } from '#libs/database';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { openProcessLogger, stopOnSignals } from '#libs/logging';
import { observeEventLog } from '#libs/metrics';
import { loadControlPlaneConfig } from './control-plane.config.js';
import { configureControlPlaneHttp, controlPlaneAdapter } from './control-plane-http.js';
import { ControlPlaneModule } from './control-plane.module.js';
import { openPlatformResources } from './platform-resources.js';

async function main(): Promise<void> {
  const config = loadControlPlaneConfig();
  const { logger, nestLogger } = openProcessLogger('berth-control-plane');
  const onError = (error: unknown): void => {
    logger.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  };
  const resources = await openPlatformResources(config, { onError });
  observeEventLog(resources.eventStore, resources.runners);
  const app = await NestFactory.create<NestFastifyApplication>(
    ControlPlaneModule.forRoot(resources, {
      onError,
      onInfo: (message) => {
        logger.info(message);
      },
    }),
    controlPlaneAdapter(logger),
    // JSON bodies are parsed by registerJsonInput, not by Nest's default parser.
    { logger: nestLogger, bodyParser: false },
  );
  const consoleServed = await configureControlPlaneHttp(app, resources);
  // Starts the projections and the reconciler, then serves.
  await app.listen({ port: config.port, host: config.host });
  const where = resources.database.embedded
    ? `embedded PostgreSQL in ${config.dataDir}`
    : describeDatabaseUrl(resources.database.url);
  logger.info(`Berth control plane on http://${config.host}:${config.port} (database: ${where})`);
  if (!consoleServed)
    logger.warn('The web console was not built (npm run build): / serves nothing');
  const sealing = describeSealing(resources.sandbox.gaps, resources.refusedTenants);
  if (sealing) logger.warn(sealing);

  stopOnSignals(logger, async () => {
    // The reconciler first (its rollouts end, its runtimes stop), then the HTTP server, then the
    // projections.
    await app.close();
    await resources.close();
  });
}

/** Said once at start when tenants are not sealed from each other, with what follows from it. */
function describeSealing(gaps: readonly string[], refused: readonly string[]): string | undefined {
  if (gaps.length === 0) return undefined;
  const consequence =
    refused.length > 0
      ? `The keys of tenant(s) ${refused.join(', ')} are refused (403); set BERTH_ALLOW_UNSEALED_TENANTS=true to accept them.`
      : 'Every configured tenant is served (one tenant only, or BERTH_ALLOW_UNSEALED_TENANTS=true).';
  return `Tenants are not sealed from each other here: ${gaps.join('; ')}. ${consequence}`;
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
