import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { loadControlPlaneConfig } from './control-plane.config.js';
import { ControlPlaneModule } from './control-plane.module.js';
import { openPlatformResources } from './platform-resources.js';

async function main(): Promise<void> {
  const logger = new Logger('berth');
  const config = loadControlPlaneConfig();
  const resources = await openPlatformResources(config, {
    onError: (error) => {
      logger.error(error instanceof Error ? error.message : String(error));
    },
  });
  for (const runner of resources.runners) runner.start();

  const app = await NestFactory.create<NestFastifyApplication>(
    ControlPlaneModule.forRoot(resources),
    new FastifyAdapter(),
    { logger: ['error', 'warn'] },
  );
  await app.listen({ port: config.port, host: config.host });

  const where = resources.database.embedded
    ? `embedded PostgreSQL in ${config.dataDir}`
    : 'DATABASE_URL';
  console.log(`Berth control plane on http://${config.host}:${config.port} (database: ${where})`);

  let stopping = false;
  const stop = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: stopping`);
    await app.close();
    await resources.close();
    process.exit(0);
  };
  process.once('SIGINT', (signal) => void stop(signal));
  process.once('SIGTERM', (signal) => void stop(signal));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
