/** Why a name is never packed, at any depth, whatever the ignore files say. */
const EXCLUDED_NAMES: ReadonlyMap<string, string> = new Map([
  ['node_modules', 'dependencies: the build installs them'],
  ['.git', 'version history'],
  ['.berth', "Berth's own data: a dev server's database and API key"],
  ['.langgraph_api', "the langgraph dev server's own data"],
]);
const ENV_FILE = /^\.env(\..+)?$/;
const ENV_REASON = "secrets: the .env's variables are sent as the deployment's secrets";

/**
 * Why `name` is never packed, or undefined when it may be. `.env` / `.env.*` hold secrets, which
 * travel separately; `.env.example` documents the variables and is kept.
 */
export function alwaysExcludedReason(name: string): string | undefined {
  const reason = EXCLUDED_NAMES.get(name);
  if (reason !== undefined) return reason;
  return ENV_FILE.test(name) && name !== '.env.example' ? ENV_REASON : undefined;
}

export function isAlwaysExcluded(name: string): boolean {
  return alwaysExcludedReason(name) !== undefined;
}
