const EXCLUDED_NAMES = new Set(['node_modules', '.git']);
const ENV_FILE = /^\.env(\..+)?$/;

/**
 * Names never packed, at any depth and whatever the ignore files say: dependencies are installed
 * by the build, `.git` is history, and `.env` / `.env.*` hold secrets, which travel separately.
 * `.env.example` documents the variables and is kept.
 */
export function isAlwaysExcluded(name: string): boolean {
  if (EXCLUDED_NAMES.has(name)) return true;
  return ENV_FILE.test(name) && name !== '.env.example';
}
