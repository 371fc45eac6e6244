import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CliEnvironment } from '../cli.config.js';
import { UsageError } from '../commands/scripts.js';
import { DeployClient } from '#libs/control-plane-client';
import { parseDotenv } from './dotenv.js';

/** The local platform `npm start` (berth up) runs. */
export const DEFAULT_HOST_URL = 'http://127.0.0.1:8080';
/** The data directory of the Berth checkout this CLI was built in, where `npm start` keeps its key. */
const CHECKOUT_DATA_DIR = fileURLToPath(new URL('../../../../../.berth', import.meta.url));

export interface Connection {
  readonly client: DeployClient;
  /** The variables of the project's .env; undefined when it has none. */
  readonly dotenv: Map<string, string> | undefined;
}

/** The variables of `<dir>/.env`; undefined when there is no such file. */
export async function readProjectDotenv(dir: string): Promise<Map<string, string> | undefined> {
  const file = join(dir, '.env');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw new Error(`cannot read ${file} (${code ?? String(error)})`, { cause: error });
  }
  return parseDotenv(text);
}

/**
 * A client for the control plane at BERTH_HOST_URL (the environment, else the project's .env,
 * else the local platform), with the API key from BERTH_API_KEY (the environment, else the
 * project's .env, else, for the local platform only, the key file it generated).
 */
export async function connect(env: CliEnvironment, projectDir: string): Promise<Connection> {
  const dotenv = await readProjectDotenv(projectDir);
  const fromDotenv = (name: string): string | undefined => dotenv?.get(name)?.trim() || undefined;
  const configuredUrl = env.hostUrl ?? fromDotenv('BERTH_HOST_URL');
  const baseUrl = checkHostUrl(configuredUrl ?? DEFAULT_HOST_URL);
  let apiKey = env.apiKey;
  let apiKeyOrigin = 'BERTH_API_KEY in the environment';
  if (!apiKey) {
    apiKey = fromDotenv('BERTH_API_KEY');
    apiKeyOrigin = `BERTH_API_KEY in ${join(projectDir, '.env')}`;
  }
  if (!apiKey && configuredUrl === undefined) {
    const files = [join(env.dataDir, 'api-key')];
    if (!env.dataDirConfigured) files.push(join(CHECKOUT_DATA_DIR, 'api-key'));
    for (const file of files) {
      apiKey = (await readFile(file, 'utf8').catch(() => '')).trim() || undefined;
      apiKeyOrigin = `the local platform's key file ${file}`;
      if (apiKey) break;
    }
  }
  if (!apiKey) {
    throw new Error(
      `no API key: set BERTH_API_KEY in the environment or in ${join(projectDir, '.env')}` +
        (configuredUrl === undefined ? ` (or start the local platform with "npm start")` : ''),
    );
  }
  return { client: new DeployClient({ baseUrl, apiKey, apiKeyOrigin }), dotenv };
}

function checkHostUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`BERTH_HOST_URL must be an http(s) URL, got "${value}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`BERTH_HOST_URL must be an http(s) URL, got "${value}"`);
  return value.replace(/\/+$/, '');
}
