import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '#libs/config';
import { GraphsNotLoadedError } from './application/graphs-not-loaded-error.js';
import { NoGraphLoadedError } from './application/no-graph-loaded-error.js';
import { cannotStartReason, whatToDoAbout } from './startup-failure.js';

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

describe('cannotStartReason: one line for the control plane that started the runtime', () => {
  it('names each graph that failed to load and the first line of why', () => {
    const failures = new Map([
      ['broken', 'graph "broken": cannot import /app/broken.ts: Error: no key\n    at broken.ts:1'],
      ['other', 'has no export "graph"'],
    ]);
    const error = new GraphsNotLoadedError(ENV.BERTH_GRAPH_CONFIG, failures);
    const expected =
      '2 graphs failed to load: graph "broken": cannot import /app/broken.ts: Error: no key; ' +
      'graph "other": has no export "graph"';
    expect(error.message).toBe(expected);
    expect(cannotStartReason(error, whatToDoAbout(error, ENV))).toBe(expected);
    expect(
      cannotStartReason(new NoGraphLoadedError(ENV.BERTH_GRAPH_CONFIG, failures), undefined),
    ).toBe(expected);
  });

  it('says any other failure as the person is told it, on one line', () => {
    expect(cannotStartReason(new Error('x'), 'first\n  second\n')).toBe('first second');
    expect(cannotStartReason(new Error('database down'), undefined)).toBe('database down');
  });
});
