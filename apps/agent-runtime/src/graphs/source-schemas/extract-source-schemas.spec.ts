import { beforeAll, describe, expect, it } from '@jest/globals';
import { resolve } from 'node:path';
import { extractSourceSchemas, type SourceSchemas } from './extract-source-schemas.js';

const APP = resolve('test/fixtures/schemas-app');
const source = (file: string) => resolve(APP, 'src', file);

describe('extractSourceSchemas (on test/fixtures/schemas-app)', () => {
  let schemas: SourceSchemas;

  beforeAll(() => {
    schemas = extractSourceSchemas(
      [
        { graphId: 'annotated', file: source('annotated.ts'), exportName: 'graph' },
        { graphId: 'nested', file: source('nested.ts'), exportName: 'graph' },
        { graphId: 'factory', file: source('factory.ts'), exportName: 'makeGraph' },
        { graphId: 'untyped', file: source('untyped.ts'), exportName: 'graph' },
        { graphId: 'missing', file: source('nested.ts'), exportName: 'nothing' },
      ],
      APP,
    );
  }, 120_000);

  it('reads the config annotation of a graph as its config, each key optional', () => {
    expect(schemas['annotated']?.['']?.config).toMatchObject({
      type: 'object',
      properties: { language: { enum: ['en', 'fr'] }, escalate: { type: 'boolean' } },
    });
    expect(schemas['annotated']?.['']?.config).not.toHaveProperty('required');
  });

  it("names each subgraph by the node path that runs it, through the builders' variables", () => {
    expect(Object.keys(schemas['nested'] ?? {})).toEqual(['', 'branch', 'branch|fruit']);
    expect(schemas['nested']?.['branch|fruit']?.state).toMatchObject({
      properties: { flavour: { enum: ['sour', 'sweet'] } },
    });
  });

  it('reads what a factory returns, and leaves out exports not typed as graphs', () => {
    expect(schemas['factory']?.['']?.output).toMatchObject({
      properties: { total: { type: 'number' } },
      required: ['total', 'unit'],
    });
    expect(schemas).not.toHaveProperty('untyped');
    expect(schemas).not.toHaveProperty('missing');
  });
});
