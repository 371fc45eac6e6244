import { dirname } from 'node:path';
import { ConfigError, type Environment } from '#libs/config';
import { NoGraphLoadedError } from './application/no-graph-loaded-error.js';
import {
  describeFailedGraphs,
  GraphsNotLoadedError,
} from './application/graphs-not-loaded-error.js';
import { DefaultAssistantSettingsError } from './graphs/default-assistant-settings.js';
import { GraphConfigError } from './graphs/graph-config.js';

interface ErrnoLike {
  readonly code?: unknown;
  readonly port?: unknown;
  readonly address?: unknown;
}

/** A package the code imports by name and the resolver did not find (not a relative path). */
const MISSING_PACKAGE = /Cannot find (?:package|module) '([^'./][^']*)'/;

function notInstalled(missing: string, env: Environment): string {
  const appDir = env.BERTH_GRAPH_CONFIG ? dirname(env.BERTH_GRAPH_CONFIG) : 'its directory';
  return (
    `The application's dependencies are not installed (no package '${missing}'): ` +
    `run npm install in ${appDir}, then start again.`
  );
}

/**
 * What to do about a failure to start that starting again cannot mend, ending with a line that
 * says it; undefined for one that may mend by itself (the database not up yet).
 */
export function whatToDoAbout(error: unknown, env: Environment): string | undefined {
  if (error instanceof NoGraphLoadedError) {
    const missing = [...error.failures.values()]
      .map((reason) => MISSING_PACKAGE.exec(reason)?.[1])
      .find((name) => name !== undefined);
    if (missing !== undefined) return notInstalled(missing, env);
    return `${error.message}\nMend the graphs above in ${error.configFile}, then start again.`;
  }
  if (error instanceof GraphsNotLoadedError) return error.message;
  if (error instanceof ConfigError || error instanceof GraphConfigError) return error.message;
  if (error instanceof DefaultAssistantSettingsError) return error.message;
  const { code, port, address } = (error ?? {}) as ErrnoLike;
  if (code === 'EADDRINUSE') {
    return (
      `Port ${String(port)} on ${String(address)} is in use: stop what serves on it, or choose ` +
      'another port (berth dev --port P, or BERTH_RUNTIME_PORT).'
    );
  }
  if (code === 'EACCES' && typeof port === 'number') {
    return `Port ${port} needs privileges this process has not: choose a port above 1023.`;
  }
  const message = error instanceof Error ? error.message : '';
  const missing = code === 'ERR_MODULE_NOT_FOUND' ? MISSING_PACKAGE.exec(message) : null;
  return missing?.[1] === undefined ? undefined : notInstalled(missing[1], env);
}

/**
 * Why the runtime did not start, on one line, for the control plane that started it (it becomes
 * the revision's status message): each graph that failed and why, or what the person is told.
 */
export function cannotStartReason(error: unknown, whatToDo: string | undefined): string {
  if (error instanceof NoGraphLoadedError || error instanceof GraphsNotLoadedError) {
    return describeFailedGraphs(error.failures);
  }
  const said = whatToDo ?? (error instanceof Error ? error.message : String(error));
  return said
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join(' ');
}
