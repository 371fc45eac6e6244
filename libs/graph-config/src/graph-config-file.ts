import { readFile, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { failingFor, GraphConfigError } from './graph-config-error.js';
import { configObjectOf, parseGraphsSection, type GraphSpec } from './graph-specs.js';

/** The configuration file's JSON, unchecked; a file that is missing or not JSON is an error. */
export async function readGraphConfigJson(configFile: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(configFile, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const problem =
      code === 'ENOENT'
        ? 'graph configuration file not found'
        : `cannot read the graph configuration file (${code ?? String(error)})`;
    throw new GraphConfigError(configFile, problem, { cause: error });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new GraphConfigError(configFile, `invalid JSON: ${detail}`, { cause: error });
  }
}

/** Every graph's module exists and is a file. */
export async function checkGraphFiles(
  configFile: string,
  graphs: ReadonlyMap<string, GraphSpec>,
): Promise<void> {
  await Promise.all(
    [...graphs].map(async ([graphId, spec]) => {
      const found = await stat(spec.file).catch(() => undefined);
      if (found === undefined) {
        throw new GraphConfigError(
          configFile,
          `graph "${graphId}": file ${spec.file} does not exist`,
        );
      }
      if (!found.isFile()) {
        throw new GraphConfigError(configFile, `graph "${graphId}": ${spec.file} is not a file`);
      }
    }),
  );
}

/** What every reader of a configuration checks first: the file, its JSON and its graphs. */
export interface CheckedGraphs {
  /** The configuration file, absolute. */
  readonly configFile: string;
  /** The configuration's JSON object. */
  readonly json: Record<string, unknown>;
  /** Graph ids in file order; every graph's file exists. */
  readonly graphs: ReadonlyMap<string, GraphSpec>;
}

/**
 * Reads a configuration in the `langgraph.json` format and checks what can be checked without
 * loading the application: JSON, each graph's `<file>:<export>`, each graph's file. Throws a
 * GraphConfigError whose one-line message names the file and the problem.
 */
export async function checkGraphConfigFile(configPath: string): Promise<CheckedGraphs> {
  const configFile = resolve(configPath);
  const fail = failingFor(configFile);
  const json = configObjectOf(await readGraphConfigJson(configFile), fail);
  const graphs = parseGraphsSection(json['graphs'], dirname(configFile), fail);
  await checkGraphFiles(configFile, graphs);
  return { configFile, json, graphs };
}
