/** A problem with a graph configuration file (`langgraph.json`); the message names the file. */
export class GraphConfigError extends Error {
  override readonly name = 'GraphConfigError';

  constructor(
    readonly configFile: string,
    problem: string,
    options?: ErrorOptions,
  ) {
    super(`${configFile}: ${problem}`, options);
  }
}

/** Throws the configuration's error for a problem: what the section parsers are given. */
export type Fail = (problem: string) => never;

export function failingFor(configFile: string): Fail {
  return (problem) => {
    throw new GraphConfigError(configFile, problem);
  };
}
