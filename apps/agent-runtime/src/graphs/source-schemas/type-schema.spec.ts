import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { JSON_SCHEMA_DRAFT_07, TypeSchemaWriter, type JsonSchema } from './type-schema.js';

const SOURCE = `
/** A pet of the shop. */
export interface Pet {
  /** What the pet answers to. */
  name: string;
  kind: 'cat' | 'dog' | 'bird';
  age?: number;
  born: Date;
  owner: Owner | null;
  speak(): string;
  onFed: () => void;
}
interface Owner { pets: Pet[]; }

/** Something sold. */
export abstract class Item { price = 0; }
export class Toy extends Item { squeaks = true; }
export class Food extends Item { private secret = 1; grams = 100; }

export type Wrapped = { wrap: string };
export type Literals = 1 | 2;
export type Mixed = string | number | null | undefined;
export type Flags = boolean | 'maybe';
export type Pair = [string, number];
export type Tags = Record<string, number>;
export type Loose = 'ai' | (string & {});
export type Sale = { item: Item; at: Date; note?: string };
export type Stripped = string | Wrapped;
`;

describe('TypeSchemaWriter', () => {
  let dir: string;
  let typeOf: (name: string) => ts.Type;
  let writer: TypeSchemaWriter;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'berth-type-schema-'));
    const file = join(dir, 'types.ts');
    writeFileSync(file, SOURCE);
    const program = ts.createProgram([file], { strict: true, noEmit: true, types: [] });
    const checker = program.getTypeChecker();
    const sourceFile = program.getSourceFile(file);
    const module = sourceFile && checker.getSymbolAtLocation(sourceFile);
    if (!module) throw new Error('the test source did not compile');
    const exports = checker.getExportsOfModule(module);
    typeOf = (name) => {
      const symbol = exports.find((exported) => exported.name === name);
      if (!symbol) throw new Error(`no export ${name}`);
      return checker.getDeclaredTypeOfSymbol(symbol);
    };
    writer = new TypeSchemaWriter(program, checker, {
      omitMember: (type) => type.getProperty('wrap') !== undefined,
    });
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  const document = (name: string): JsonSchema | null => writer.document(typeOf(name));

  it('writes an interface as a definition, with descriptions, required keys and no methods', () => {
    expect(document('Pet')).toEqual({
      $ref: '#/definitions/Pet',
      definitions: {
        Pet: {
          description: 'A pet of the shop.',
          type: 'object',
          properties: {
            name: { type: 'string', description: 'What the pet answers to.' },
            kind: { type: 'string', enum: ['bird', 'cat', 'dog'] },
            age: { type: 'number' },
            born: { type: 'string', format: 'date-time' },
            owner: { anyOf: [{ type: 'null' }, { $ref: '#/definitions/Owner' }] },
          },
          required: ['name', 'kind', 'born', 'owner'],
        },
        Owner: {
          type: 'object',
          properties: { pets: { type: 'array', items: { $ref: '#/definitions/Pet' } } },
          required: ['pets'],
        },
      },
      $schema: JSON_SCHEMA_DRAFT_07,
    });
  });

  it('writes an abstract class as the oneOf of the classes extending it, without private members', () => {
    const sale = document('Sale');
    expect(sale).toMatchObject({
      type: 'object',
      properties: { item: { $ref: '#/definitions/Item' }, note: { type: 'string' } },
      required: ['item', 'at'],
      definitions: {
        Item: {
          description: 'Something sold.',
          oneOf: [{ $ref: '#/definitions/Toy' }, { $ref: '#/definitions/Food' }],
        },
        Toy: { properties: { squeaks: { type: 'boolean' }, price: { type: 'number' } } },
        Food: { properties: { grams: { type: 'number' }, price: { type: 'number' } } },
      },
    });
    const food = (sale?.definitions as Record<string, JsonSchema>)['Food'];
    expect(food?.properties).not.toHaveProperty('secret');
  });

  it('writes unions of literals as enums and of primitives as type lists, null last', () => {
    expect(document('Literals')).toMatchObject({ type: 'number', enum: [1, 2] });
    expect(document('Mixed')).toMatchObject({ type: ['string', 'number', 'null'] });
    expect(document('Flags')).toMatchObject({
      anyOf: [{ type: 'string', const: 'maybe' }, { type: 'boolean' }],
    });
    expect(document('Loose')).toMatchObject({
      anyOf: [{ type: 'string', const: 'ai' }, { type: 'string' }],
    });
  });

  it('writes tuples, records and inline objects, and leaves out omitted union members', () => {
    expect(document('Pair')).toMatchObject({
      type: 'array',
      items: [{ type: 'string' }, { type: 'number' }],
      minItems: 2,
      maxItems: 2,
    });
    expect(document('Tags')).toMatchObject({
      type: 'object',
      properties: {},
      additionalProperties: { type: 'number' },
    });
    expect(document('Wrapped')).toMatchObject({
      type: 'object',
      properties: { wrap: { type: 'string' } },
      required: ['wrap'],
    });
    expect(document('Stripped')).toEqual({ type: 'string', $schema: JSON_SCHEMA_DRAFT_07 });
  });

  it('writes an object of named properties, none required', () => {
    const schema = writer.objectDocument(
      [
        { name: 'kind', type: typeOf('Literals'), description: 'How many' },
        { name: 'pet', type: typeOf('Pet') },
      ],
      false,
    );
    expect(schema).toMatchObject({
      type: 'object',
      properties: {
        kind: { type: 'number', enum: [1, 2], description: 'How many' },
        pet: { $ref: '#/definitions/Pet' },
      },
      definitions: { Pet: { type: 'object' }, Owner: { type: 'object' } },
    });
    expect(schema).not.toHaveProperty('required');
  });
});
