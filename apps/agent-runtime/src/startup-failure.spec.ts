import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '#libs/config';
import { NoGraphLoadedError } from './application/no-graph-loaded-error.js';
import { whatToDoAbout } from './startup-failure.js';

const ENV = { BERTH_GRAPH_CONFIG: '/apps/weather/langgraph.json' };

describe('whatToDoAbout: the failures to start that starting again cannot mend', () => {
  it('names the package to install when a graph imports one that is not there', () => {
    const error = new NoGraphLoadedError(
      ENV.BERTH_GRAPH_CONFIG,
      new Map([
        [
          'agent',
          "cannot import /apps/weather/graph.ts: Cannot find module '@langchain/langgraph'",
        ],
      ]),
    );
    expect(whatToDoAbout(error, ENV)).toBe(
      "The application's dependencies are not installed (no package '@langchain/langgraph'): run npm install in /apps/weather, then start again.",
    );
  });

  it("ends the graphs' own failures with what to do, and does not take a missing file for a package", () => {
    const error = new NoGraphLoadedError(
      ENV.BERTH_GRAPH_CONFIG,
      new Map([['agent', "cannot import /apps/weather/graph.ts: Cannot find module './tools.js'"]]),
    );
    const said = whatToDoAbout(error, ENV)?.split('\n');
    expect(said?.at(-1)).toBe(
      `Mend the graphs above in ${ENV.BERTH_GRAPH_CONFIG}, then start again.`,
    );
    expect(said).toContain("cannot import /apps/weather/graph.ts: Cannot find module './tools.js'");
  });

  it('says a refused setting as it is', () => {
    expect(whatToDoAbout(new ConfigError('BERTH_RUN_WORKERS must be a number'), ENV)).toBe(
      'BERTH_RUN_WORKERS must be a number',
    );
  });

  it('leaves what may mend by itself to a restart (the database not up yet)', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
      code: 'ECONNREFUSED',
    });
    expect(whatToDoAbout(refused, ENV)).toBeUndefined();
    expect(whatToDoAbout(new Error('something else'), ENV)).toBeUndefined();
  });
});
