import { resolve } from 'node:path';

/** The `ui` and `ui_config` sections of `langgraph.json`: generative UI components to serve. */
export interface UiSection {
  /** Each agent's component module (`ui.<agent>`), absolute, as written (not yet checked). */
  readonly components: ReadonlyMap<string, string>;
  /** `ui_config.shared`: packages the page provides, left out of the bundles like React. */
  readonly shared: readonly string[];
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Reads `ui` (agent → component file) and `ui_config`; relative paths are relative to `dir`. */
export function parseUiSection(
  rawUi: unknown,
  rawConfig: unknown,
  dir: string,
  fail: (problem: string) => never,
  warn: (warning: string) => void,
): UiSection | undefined {
  const shared = parseUiConfig(rawConfig, fail, warn);
  if (rawUi === undefined || rawUi === null) {
    if (rawConfig !== undefined && rawConfig !== null) {
      warn('"ui_config" is given without "ui": there is no component to bundle');
    }
    return undefined;
  }
  if (!isRecord(rawUi)) return fail('"ui" must be an object mapping agent names to files');
  const components = new Map<string, string>();
  for (const [agent, file] of Object.entries(rawUi)) {
    if (agent === '') fail('"ui" has an empty agent name');
    if (typeof file !== 'string' || file === '') {
      fail(`"ui.${agent}" must be the path of a component file`);
    }
    components.set(agent, resolve(dir, file));
  }
  return { components, shared };
}

function parseUiConfig(
  raw: unknown,
  fail: (problem: string) => never,
  warn: (warning: string) => void,
): string[] {
  if (raw === undefined || raw === null) return [];
  if (!isRecord(raw)) return fail('"ui_config" must be an object');
  for (const key of Object.keys(raw)) {
    if (key !== 'shared') warn(`"ui_config.${key}" is not a key Berth knows: it is ignored`);
  }
  const shared = raw['shared'] ?? [];
  if (!Array.isArray(shared) || shared.some((name) => typeof name !== 'string' || name === '')) {
    return fail('"ui_config.shared" must be an array of package names');
  }
  return shared as string[];
}
