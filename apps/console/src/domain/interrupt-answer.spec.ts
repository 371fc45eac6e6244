import { checkAnswer, parsedAnswer, interruptIn } from './interrupt-answer';

describe('checkAnswer', () => {
  it('sends what was typed, as JSON when it is JSON', () => {
    expect(checkAnswer('true', { type: 'boolean' })).toEqual({ ok: true, value: true });
    expect(checkAnswer('{"approved": false}', undefined)).toEqual({
      ok: true,
      value: { approved: false },
    });
    expect(checkAnswer('looks good', undefined)).toEqual({ ok: true, value: 'looks good' });
  });

  it('refuses an empty answer without a schema, or with one that does not allow it', () => {
    for (const schema of [
      undefined,
      null,
      { type: 'boolean' },
      { type: 'object', properties: { approved: { type: 'boolean' } } },
      { type: 'string', minLength: 1 },
      { type: 'string', pattern: '\\S' },
      { enum: ['yes', 'no'] },
      { anyOf: [{ type: 'boolean' }, { type: 'object' }] },
      { not: { type: 'string' }, type: ['string', 'boolean'] },
      false,
    ]) {
      expect(checkAnswer('  ', schema)).toMatchObject({ ok: false });
    }
  });

  it('sends an empty answer where the schema allows the empty string, or else null', () => {
    expect(checkAnswer('', { type: 'string' })).toEqual({ ok: true, value: '' });
    expect(checkAnswer('', { anyOf: [{ type: 'boolean' }, { type: 'string' }] })).toEqual({
      ok: true,
      value: '',
    });
    expect(checkAnswer('', { type: ['boolean', 'null'] })).toEqual({ ok: true, value: null });
    expect(checkAnswer('', { enum: ['', 'later'] })).toEqual({ ok: true, value: '' });
    expect(checkAnswer('', {})).toEqual({ ok: true, value: '' });
    expect(checkAnswer('', true)).toEqual({ ok: true, value: '' });
  });
});

describe('parsedAnswer', () => {
  it('is JSON when the text is JSON, else the text', () => {
    expect(parsedAnswer('42')).toBe(42);
    expect(parsedAnswer('not json')).toBe('not json');
  });
});

describe('interruptIn', () => {
  it("is the interrupt with that id in the thread's tasks, with its schema", () => {
    const tasks = [
      { interrupts: [] },
      {
        interrupts: [
          { id: 'a', value: 'Approve?', response_schema: { type: 'boolean' } },
          { id: 'b', value: 'A note?' },
        ],
      },
    ];
    expect(interruptIn(tasks, 'a')?.response_schema).toEqual({ type: 'boolean' });
    expect(interruptIn(tasks, 'b')).toEqual({ id: 'b', value: 'A note?' });
    expect(interruptIn(tasks, 'c')).toBeUndefined();
    expect(interruptIn(undefined, 'a')).toBeUndefined();
  });
});
