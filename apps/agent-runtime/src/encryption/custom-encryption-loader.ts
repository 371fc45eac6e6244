import { pathToFileURL } from 'node:url';
import { tsImport } from 'tsx/esm/api';
import { GraphConfigError } from '#libs/graph-config';
import { readGraphConfig } from '../graphs/graph-config.js';
import { CustomKeyWrapper, encryptionHandlersOf } from './custom-encryption.js';

let loaded: CustomKeyWrapper | undefined;

/**
 * The application's `encryption.path` as the wrapper of the runtime's data keys, or undefined
 * without one. A module that does not load, or is no encryption object, stops the start: the
 * runtime must not write what it was asked to encrypt with its own key instead.
 */
export async function loadCustomEncryption(
  graphConfigPath: string,
): Promise<CustomKeyWrapper | undefined> {
  const config = await readGraphConfig(graphConfigPath);
  const spec = config.encryption;
  if (!spec) return undefined;
  const fail = (why: string): never => {
    throw new GraphConfigError(config.configFile, `encryption.path: ${why}`);
  };
  const url = pathToFileURL(spec.file).href;
  const module = (await tsImport(url, pathToFileURL(config.configFile).href).catch(
    (error: unknown) => fail(error instanceof Error ? error.message : String(error)),
  )) as Record<string, unknown>;
  if (!(spec.exportName in module)) fail(`${spec.file} has no export "${spec.exportName}"`);
  const handlers = encryptionHandlersOf(await module[spec.exportName]);
  if (typeof handlers === 'string') return fail(`export "${spec.exportName}" ${handlers}`);
  loaded = new CustomKeyWrapper(handlers);
  return loaded;
}

/** The wrapper loaded at start, for the request hook that derives its metadata. */
export function loadedCustomEncryption(): CustomKeyWrapper | undefined {
  return loaded;
}
