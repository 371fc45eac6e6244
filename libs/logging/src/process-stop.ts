import type { Logger } from './logger.js';

/**
 * Stops the process once, on SIGINT or SIGTERM or whatever else calls the returned function: says
 * why, runs `stopping` (closing what the process opened), then exits: 0, or 1 when closing failed.
 */
export function stopOnSignals(
  logger: Logger,
  stopping: () => Promise<void>,
): (reason: string) => void {
  let stopped = false;
  const stop = (reason: string): void => {
    if (stopped) return;
    stopped = true;
    logger.info(`${reason}: stopping`);
    stopping().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return stop;
}
