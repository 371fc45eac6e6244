import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CliEnvironment } from '../cli.config.js';
import { UsageError } from '../commands/scripts.js';
import { platformAt, runningPlatforms } from '../platform/platform-record.js';
import { DeployClient } from '#libs/control-plane-client';
import { parseDotenv } from './dotenv.js';

/** The local platform `npm start` (berth up) runs, when none is recorded as running. */
export const DEFAULT_HOST_URL = 'http://127.0.0.1:8080';

export interface Connection {
  readonly client: DeployClient;
  /** The variables of the project's .env; undefined when it has none. */
  readonly dotenv: Map<string, string> | undefined;
  /** Which platform this is, when it is one running on this machine. */
  readonly platform: string | undefined;
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
 * else the platform running on this machine, else the default local one), with the API key from
 * BERTH_API_KEY (the environment, else the project's .env, else the running platform's at that
 * URL, whatever its port, else, for the default local one, the key file in Berth's data
 * directory). Nothing is read from the current directory but its .env.
 */
export async function connect(env: CliEnvironment, projectDir: string): Promise<Connection> {
  const dotenv = await readProjectDotenv(projectDir);
  const fromDotenv = (name: string): string | undefined => dotenv?.get(name)?.trim() || undefined;
  const configuredUrl = env.hostUrl ?? fromDotenv('BERTH_HOST_URL');
  const platforms = await runningPlatforms(env.platformRecordsDir);
  const baseUrl = checkHostUrl(configuredUrl ?? platforms[0]?.controlPlaneUrl ?? DEFAULT_HOST_URL);
  const platform = platformAt(platforms, baseUrl);
  const key =
    keyFrom(env.apiKey, 'BERTH_API_KEY in the environment') ??
    keyFrom(fromDotenv('BERTH_API_KEY'), `BERTH_API_KEY in ${join(projectDir, '.env')}`) ??
    keyFrom(platform?.apiKey, `the key of the platform running in ${platform?.dataDir ?? ''}`) ??
    (configuredUrl === undefined ? await keptKey(env.dataDir) : undefined);
  if (!key) {
    throw new Error(
      `no API key: set BERTH_API_KEY in the environment or in ${join(projectDir, '.env')}` +
        (configuredUrl === undefined ? ` (or start the local platform with "npm start")` : ''),
    );
  }
  return {
    client: new DeployClient({
      baseUrl,
      apiKey: key.value,
      apiKeyOrigin: key.origin,
      followSilenceMs:
        env.followSilenceSeconds === undefined ? undefined : env.followSilenceSeconds * 1000,
    }),
    dotenv,
    platform: platform && `the platform running in ${platform.dataDir}`,
  };
}

interface KeyFound {
  readonly value: string;
  readonly origin: string;
}

function keyFrom(value: string | undefined, origin: string): KeyFound | undefined {
  return value ? { value, origin } : undefined;
}

async function keptKey(dataDir: string): Promise<KeyFound | undefined> {
  const file = join(dataDir, 'api-key');
  const value = (await readFile(file, 'utf8').catch(() => '')).trim();
  return keyFrom(value, `the local platform's key file ${file}`);
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
