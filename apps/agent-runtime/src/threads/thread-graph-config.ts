import type { JsonObject } from '#libs/domain';
import type { GraphFactoryConfig } from '../graphs/graph-loader.js';
import type { ThreadRow } from './thread.entity.js';

/**
 * The config a graph factory is called with to read or write a thread's state: the thread's
 * config (that of the runs made on it, the assistant's included), as the reference server uses.
 * A factory whose nodes depend on the assistant then builds the graph the thread's checkpoints
 * were written by.
 */
export function threadGraphConfig(
  thread: Pick<ThreadRow, 'thread_id' | 'config'>,
): GraphFactoryConfig {
  const configurable = thread.config.configurable;
  return {
    ...thread.config,
    configurable: {
      ...(isObject(configurable) ? configurable : {}),
      thread_id: thread.thread_id,
    },
  };
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
