import { describe, expect, it } from '@jest/globals';
import { argumentsProblem } from './tool-arguments.js';
import { RESUME_ARGUMENT, THREAD_ID_ARGUMENT, toolInputSchema } from './tool-input-schema.js';

const THREAD = '01900000-0000-7000-8000-000000000000';

describe("a tool's arguments", () => {
  it("are the graph's input, thread_id and resume, or any object when the graph names no properties", () => {
    const keys = { type: 'object', properties: { topic: {}, notes: {} } };
    expect(toolInputSchema(keys)).toEqual({
      type: 'object',
      properties: { topic: {}, notes: {}, thread_id: THREAD_ID_ARGUMENT, resume: RESUME_ARGUMENT },
    });
    expect(toolInputSchema(null)).toEqual({
      type: 'object',
      properties: { thread_id: THREAD_ID_ARGUMENT, resume: RESUME_ARGUMENT },
    });
    expect(argumentsProblem(toolInputSchema(null), { anything: [1], thread_id: THREAD })).toBe(
      undefined,
    );
  });

  it('are checked against the schema: types, required keys, a thread_id that is no UUID', () => {
    const schema = toolInputSchema({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
      additionalProperties: false,
    });
    expect(argumentsProblem(schema, { city: 'Paris', thread_id: THREAD })).toBeUndefined();
    expect(argumentsProblem(schema, { city: 3 })).toMatch(/city must be string/);
    expect(argumentsProblem(schema, {})).toMatch(/required property 'city'/);
    expect(argumentsProblem(schema, { city: 'Paris', thread_id: 'x' })).toMatch(/uuid/);
  });

  it("resume a run on its thread without the graph's input, which it needs not have", () => {
    const schema = toolInputSchema({
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
    });
    expect(argumentsProblem(schema, { resume: { approved: true }, thread_id: THREAD })).toBe(
      undefined,
    );
    expect(argumentsProblem(schema, { resume: false, thread_id: THREAD })).toBeUndefined();
    expect(argumentsProblem(schema, { resume: 'yes' })).toMatch(/thread_id/);
    expect(argumentsProblem(schema, { resume: 'yes', thread_id: 'x' })).toMatch(/uuid/);
  });

  it('are still checked for thread_id when the graph schema cannot be read', () => {
    const unreadable = toolInputSchema({ type: 'object', properties: { a: { $ref: '#/nope' } } });
    expect(argumentsProblem(unreadable, { a: 1 })).toBeUndefined();
    expect(argumentsProblem(unreadable, { thread_id: 'x' })).toMatch(/uuid/);
  });
});
