import { describe, expect, it, jest } from '@jest/globals';
import { GraphSchemaCatalog, type SourceReader } from './graph-schema-catalog.js';
import type { GraphRegistry } from './graph-loader.js';

const annotationGraph = { builder: { channels: { topic: {} } } };
const stateSchemaGraph = {
  builder: {
    _schemaRuntimeDefinition: {
      getJsonSchema: () => ({ title: 'state' }),
      getInputJsonSchema: () => ({ title: 'input' }),
    },
    _inputRuntimeDefinition: Symbol.for('langgraph.state.partial'),
    _outputRuntimeDefinition: {
      getJsonSchema: () => ({ title: 'output' }),
      getInputJsonSchema: () => ({ title: 'output input' }),
    },
  },
};

/** A registry whose graphs' LangGraph offers no zod readers. */
const registry = {
  config: { dir: '/app' },
  spec: (graphId: string) => ({ file: `/app/${graphId}.ts`, exportName: 'graph' }),
  bindings: () => Promise.resolve({ langgraphPackage: { packageJson: '/app/lg/package.json' } }),
  importFromGraph: () => Promise.reject(new Error('no such module')),
} as unknown as GraphRegistry;

const catalogWith = (readSource: SourceReader, warn = jest.fn<(message: string) => void>()) =>
  new GraphSchemaCatalog(registry, () => ['topics', 'chat'], { timeoutMs: 1000, warn, readSource });

describe('GraphSchemaCatalog', () => {
  it('reads the source once, for every graph, and answers a subgraph by its namespace', async () => {
    const readSource = jest.fn<SourceReader>().mockResolvedValue({
      topics: {
        '': { state: { title: 'typed' }, input: null, output: null, config: { title: 'ctx' } },
        'a|b': { state: { title: 'sub' }, input: null, output: null, config: null },
      },
    });
    const catalog = catalogWith(readSource);
    expect(await catalog.schemasOf('topics', annotationGraph)).toEqual({
      state: { title: 'typed' },
      input: { type: 'object', properties: { topic: {} } },
      output: { type: 'object', properties: { topic: {} } },
      config: { title: 'ctx' },
    });
    expect((await catalog.schemasOf('topics', annotationGraph, 'a|b')).state).toEqual({
      title: 'sub',
    });
    expect(readSource).toHaveBeenCalledTimes(1);
    expect(readSource).toHaveBeenCalledWith(
      [
        { graphId: 'topics', file: '/app/topics.ts', exportName: 'graph' },
        { graphId: 'chat', file: '/app/chat.ts', exportName: 'graph' },
      ],
      '/app',
    );
  });

  it('completes what the runtime objects leave unknown (a StateSchema has no config)', async () => {
    const readSource = jest.fn<SourceReader>().mockResolvedValue({
      chat: { '': { state: null, input: null, output: null, config: { title: 'ctx' } } },
    });
    expect(await catalogWith(readSource).schemasOf('chat', stateSchemaGraph)).toEqual({
      state: { title: 'state' },
      input: { title: 'input' },
      output: { title: 'output' },
      config: { title: 'ctx' },
    });
  });

  it('warns once and gives the state keys when the source cannot be read', async () => {
    const warn = jest.fn<(message: string) => void>();
    const readSource = jest.fn<SourceReader>().mockRejectedValue(new Error('took too long'));
    const catalog = catalogWith(readSource, warn);
    const keys = { type: 'object', properties: { topic: {} } };
    for (let attempt = 0; attempt < 2; attempt++) {
      expect(await catalog.schemasOf('topics', annotationGraph)).toEqual({
        state: keys,
        input: keys,
        output: keys,
        config: null,
      });
    }
    expect(readSource).toHaveBeenCalledTimes(1);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]?.[0]).toContain('took too long');
  });
});
