import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  GraphConfigError,
  parseGraphConfig,
  readGraphConfig,
  readGraphEnv,
} from './graph-config.js';

const exampleConfig = resolve('examples/agent/langgraph.json');

describe('readGraphConfig', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'berth-graph-config-'));
    await mkdir(join(dir, 'src'));
    await writeFile(join(dir, 'src', 'graph.ts'), 'export const graph = {};\n');
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function configWith(json: string): Promise<string> {
    const file = join(dir, `langgraph-${Math.random().toString(36).slice(2)}.json`);
    await writeFile(file, json);
    return file;
  }

  it('reads the example application, paths made absolute from its directory', async () => {
    const config = await readGraphConfig(exampleConfig);
    const dir = resolve('examples/agent');
    expect(config.dir).toBe(dir);
    expect(config.configFile).toBe(exampleConfig);
    expect([...config.graphs.keys()]).toEqual(['agent', 'subgraph', 'interrupt', 'custom']);
    expect(config.graphs.get('agent')).toEqual({
      file: join(dir, 'src', 'agent.ts'),
      exportName: 'graph',
    });
    expect(config.graphs.get('interrupt')?.exportName).toBe('makeGraph');
    expect(config.envFile).toBe(join(dir, '.env'));
    expect(config.env).toBeUndefined();
    expect(config.dependencies).toEqual([dir]);
    expect(config.nodeVersion).toBe('20');
  });

  it('accepts graphs given as objects with a path and a description, and an env object', async () => {
    const file = await configWith(
      JSON.stringify({
        graphs: { echo: { path: './src/graph.ts:graph', description: 'Echoes' } },
        env: { GREETING: 'hi' },
        dependencies: ['.', '@acme/pkg'],
      }),
    );
    const config = await readGraphConfig(file);
    expect(config.graphs.get('echo')).toEqual({
      file: join(dir, 'src', 'graph.ts'),
      exportName: 'graph',
      description: 'Echoes',
    });
    expect(config.env).toEqual({ GREETING: 'hi' });
    expect(config.envFile).toBeUndefined();
    expect(config.dependencies).toEqual([dir, '@acme/pkg']);
    expect(await readGraphEnv(config)).toEqual({ GREETING: 'hi' });
  });

  it('reads the env file, and gives no variables when it does not exist', async () => {
    await writeFile(join(dir, 'app.env'), 'A=1\n# comment\nB="two words"\n');
    const withFile = await readGraphConfig(
      await configWith('{"graphs": {"g": "./src/graph.ts:graph"}, "env": "app.env"}'),
    );
    expect(withFile.envFile).toBe(join(dir, 'app.env'));
    expect(await readGraphEnv(withFile)).toEqual({ A: '1', B: 'two words' });

    const missing = await readGraphConfig(
      await configWith('{"graphs": {"g": "./src/graph.ts:graph"}, "env": ".env.missing"}'),
    );
    expect(await readGraphEnv(missing)).toEqual({});
  });

  it('names the file when it does not exist', async () => {
    const file = join(dir, 'nope.json');
    const error = await readGraphConfig(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GraphConfigError);
    expect((error as GraphConfigError).configFile).toBe(file);
    expect((error as Error).message).toBe(`${file}: graph configuration file not found`);
  });

  it('rejects invalid JSON', async () => {
    const file = await configWith('{"graphs": {');
    await expect(readGraphConfig(file)).rejects.toThrow(
      new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: invalid JSON: `),
    );
  });

  it('rejects a graph spec without an export', async () => {
    const file = await configWith('{"graphs": {"agent": "./src/graph.ts"}}');
    await expect(readGraphConfig(file)).rejects.toThrow(
      `${file}: graph "agent": spec "./src/graph.ts" must name an export, as in "./src/graph.ts:graph"`,
    );
    const empty = await configWith('{"graphs": {"agent": "./src/graph.ts:"}}');
    await expect(readGraphConfig(empty)).rejects.toThrow('must name an export');
  });

  it('rejects a graph file that does not exist', async () => {
    const file = await configWith('{"graphs": {"agent": "./src/missing.ts:graph"}}');
    await expect(readGraphConfig(file)).rejects.toThrow(
      `${file}: graph "agent": file ${join(dir, 'src', 'missing.ts')} does not exist`,
    );
  });

  it('rejects a graph file that is a directory', async () => {
    const file = await configWith('{"graphs": {"agent": "./src:graph"}}');
    await expect(readGraphConfig(file)).rejects.toThrow(`${join(dir, 'src')} is not a file`);
  });
});

describe('parseGraphConfig', () => {
  const file = '/apps/demo/langgraph.json';
  const problem = (json: unknown): string => {
    try {
      parseGraphConfig(json, file);
    } catch (error) {
      expect(error).toBeInstanceOf(GraphConfigError);
      return (error as Error).message;
    }
    throw new Error('no error');
  };

  it('names the problem', () => {
    expect(problem([])).toBe(`${file}: the configuration must be a JSON object`);
    expect(problem({})).toBe(`${file}: "graphs" must be an object mapping graph ids to specs`);
    expect(problem({ graphs: {} })).toBe(`${file}: "graphs" names no graph`);
    expect(problem({ graphs: { a: 42 } })).toBe(
      `${file}: graph "a": the spec must be a string "<file>:<export>" or an object with "path"`,
    );
    expect(problem({ graphs: { a: ':graph' } })).toBe(
      `${file}: graph "a": spec ":graph" has no file before ":"`,
    );
    expect(problem({ graphs: { a: { path: './a.ts:g', description: 3 } } })).toBe(
      `${file}: graph "a": "description" must be a string`,
    );
    expect(problem({ graphs: { a: './a.ts:g' }, env: 3 })).toBe(
      `${file}: "env" must be a path to an env file or an object of variables`,
    );
    expect(problem({ graphs: { a: './a.ts:g' }, env: { A: 1 } })).toBe(
      `${file}: "env": the value of A must be a string`,
    );
    expect(problem({ graphs: { a: './a.ts:g' }, dependencies: '.' })).toBe(
      `${file}: "dependencies" must be an array of strings`,
    );
  });

  it('resolves relative paths from the file directory, absolute ones as they are', () => {
    const config = parseGraphConfig(
      { graphs: { a: './src/a.ts:graph', b: '/elsewhere/b.mjs:default' } },
      file,
    );
    expect(config.graphs.get('a')).toEqual({ file: '/apps/demo/src/a.ts', exportName: 'graph' });
    expect(config.graphs.get('b')).toEqual({ file: '/elsewhere/b.mjs', exportName: 'default' });
    expect(config.dependencies).toEqual([]);
  });
});
