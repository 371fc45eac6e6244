import { describe, expect, it } from '@jest/globals';
import { channelKeySchema, combinedSchemas, runtimeSchemas } from './graph-schemas.js';

const PARTIAL_STATE = Symbol.for('langgraph.state.partial');
const NONE = { state: null, input: null, output: null, config: null };

const stateSchema = (name: string) => ({
  getJsonSchema: () => ({ type: 'object', title: `${name} state` }),
  getInputJsonSchema: () => ({ type: 'object', title: `${name} input` }),
});

describe('runtimeSchemas', () => {
  it("gives a StateSchema's own schemas, its input when the input is the partial state", () => {
    const graph = {
      builder: {
        _schemaRuntimeDefinition: stateSchema('chat'),
        _inputRuntimeDefinition: PARTIAL_STATE,
        _outputRuntimeDefinition: stateSchema('out'),
      },
    };
    expect(runtimeSchemas(graph, {})).toEqual({
      state: { type: 'object', title: 'chat state' },
      input: { type: 'object', title: 'chat input' },
      output: { type: 'object', title: 'out state' },
      config: null,
    });
  });

  it("reads a zod state through the application's registry readers", () => {
    const graph = { builder: { _schemaRuntimeDefinition: { zod: true } } };
    const schemas = runtimeSchemas(graph, {
      getUpdateTypeSchema: (read) => (read === graph ? { title: 'update' } : undefined),
      getInputTypeSchema: () => ({ title: 'input' }),
      getOutputTypeSchema: () => {
        throw new Error('not readable');
      },
      getConfigTypeSchema: () => undefined,
    });
    expect(schemas).toEqual({
      state: { title: 'update' },
      input: { title: 'input' },
      output: null,
      config: null,
    });
  });

  it('converts zod definitions as they are when the registry gives nothing', () => {
    const zod = (title: string) => ({ zod: title });
    const graph = {
      builder: {
        _schemaRuntimeDefinition: zod('state'),
        _configRuntimeSchema: zod('config'),
        _outputRuntimeDefinition: { notZod: true },
      },
    };
    const schemas = runtimeSchemas(graph, {
      getUpdateTypeSchema: () => undefined,
      isZodSchema: (value) => typeof value === 'object' && value !== null && 'zod' in value,
      toJsonSchema: (value) => ({
        title: (value as { zod: string }).zod,
        required: ['a'],
      }),
    });
    expect(schemas).toEqual({
      state: { title: 'state', required: ['a'] },
      input: { title: 'state' },
      output: null,
      config: { title: 'config', required: ['a'] },
    });
  });

  it('knows nothing of an Annotation state, or of something that is no StateGraph', () => {
    expect(runtimeSchemas({ builder: { channels: { a: {} } } }, {})).toEqual(NONE);
    expect(runtimeSchemas({}, {})).toEqual(NONE);
    expect(runtimeSchemas(null, {})).toEqual(NONE);
  });
});

describe('combinedSchemas', () => {
  const graph = { builder: { channels: { topic: {}, __start__: {}, 'branch:to:x': {} } } };

  it('takes each schema from the runtime, else the source, else the state keys', () => {
    const combined = combinedSchemas(
      graph,
      { state: { title: 'runtime state' }, input: null, output: null, config: null },
      {
        state: { title: 'source state' },
        input: { title: 'source input' },
        output: null,
        config: null,
      },
    );
    expect(combined).toEqual({
      state: { title: 'runtime state' },
      input: { title: 'source input' },
      output: { type: 'object', properties: { topic: {} } },
      config: null,
    });
  });

  it('gives the state keys without a source, and no config', () => {
    expect(combinedSchemas(graph, NONE, undefined)).toEqual({
      state: { type: 'object', properties: { topic: {} } },
      input: { type: 'object', properties: { topic: {} } },
      output: { type: 'object', properties: { topic: {} } },
      config: null,
    });
  });
});

describe('channelKeySchema', () => {
  it('is null for a graph with no state keys of its own', () => {
    expect(channelKeySchema({ builder: { channels: { __start__: {} } } })).toBeNull();
    expect(channelKeySchema({ builder: {} })).toBeNull();
  });
});
