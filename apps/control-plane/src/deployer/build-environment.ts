import { join } from 'node:path';
import { EXTRA_CERTIFICATES } from '../isolation/extra-certificates.js';

/**
 * What build commands see of the environment: enough to run and to reach the package registry as
 * the machine does, nothing of the platform's; their npm cache is in the deployment's home.
 */
export function buildEnvironment(home: string): Record<string, string> {
  const env: Record<string, string> = { CI: 'true', NODE_ENV: 'development', HOME: home };
  for (const name of ['PATH', 'LANG', 'TZ', 'npm_config_registry', EXTRA_CERTIFICATES]) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  env.npm_config_cache = join(home, '.npm');
  return env;
}
