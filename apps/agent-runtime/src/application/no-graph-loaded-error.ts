/** Not one graph of the application's configuration loaded: the runtime has nothing to serve. */
export class NoGraphLoadedError extends Error {
  override readonly name = 'NoGraphLoadedError';

  constructor(
    readonly configFile: string,
    /** Why each graph failed, by graph id. */
    readonly failures: ReadonlyMap<string, string>,
  ) {
    super(`${configFile}: no graph could be loaded:\n${[...failures.values()].join('\n')}`);
  }
}
