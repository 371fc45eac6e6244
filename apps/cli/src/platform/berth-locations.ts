import { accessSync, constants } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { envText, type Environment } from '#libs/config';

/** The root of the Berth installation this CLI runs from: the checkout, or the installed package. */
const INSTALLATION_ROOT = fileURLToPath(new URL('../../../../../', import.meta.url));

/**
 * Where Berth keeps its own data when BERTH_DATA_DIR does not say: the installation's `.berth`
 * (the checkout `npm start` runs in), else, where the installation is not writable (a package
 * installed by another user), the user's data directory. Never the current directory: an
 * application's directory must hold nothing of Berth's, or it would be packed with it.
 */
export function defaultDataDir(env: Environment, installationRoot = INSTALLATION_ROOT): string {
  if (isWritable(installationRoot)) return join(installationRoot, '.berth');
  return join(userDirectory(env, 'XDG_DATA_HOME', ['.local', 'share']), 'berth');
}

/**
 * Where a running platform records itself for the CLI to find from any directory:
 * $XDG_STATE_HOME/berth (default ~/.local/state/berth).
 */
export function platformRecordsDir(env: Environment): string {
  return join(userDirectory(env, 'XDG_STATE_HOME', ['.local', 'state']), 'berth');
}

function userDirectory(env: Environment, variable: string, fallback: readonly string[]): string {
  const configured = envText(env[variable]);
  if (configured) return resolve(configured);
  return join(envText(env.HOME) ?? homedir(), ...fallback);
}

function isWritable(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
