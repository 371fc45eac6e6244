import { describe, expect, it } from '@jest/globals';
import { newDataKey } from './aes-gcm.js';
import { openFields, sealedPartOf, sealFields, SEALED_FIELD } from './sealed-fields.js';

const key = newDataKey();
const clearSeq = (field: string): boolean => field === 'seq';

describe('sealed fields', () => {
  it('deflates a long text before encrypting it, and opens it whole', () => {
    const data = {
      seq: 3,
      messages: Array.from({ length: 60 }, (_, i) => ({ role: 'ai', content: `answer ${i}` })),
    };
    const sealed = sealFields(data, clearSeq, 'key-1', key);
    const part = sealedPartOf(sealed);

    expect(part?.deflated).toBe(true);
    expect(part?.bytes).toBe(Buffer.byteLength(JSON.stringify({ messages: data.messages })));
    expect(part?.value.length).toBeLessThan(part?.bytes ?? 0);
    expect(part && openFields(sealed, part, key)).toEqual(data);
  });

  it('keeps a short text as it is', () => {
    const data = { seq: 1, input: 'hello' };
    const sealed = sealFields(data, clearSeq, 'key-1', key);
    const part = sealedPartOf(sealed);

    expect(part?.deflated).toBeUndefined();
    expect(part && openFields(sealed, part, key)).toEqual(data);
  });

  it('gives back a field named __proto__ as an own field, not as the prototype', () => {
    const data = JSON.parse('{"seq": 2, "__proto__": {"polluted": true}}') as Record<string, never>;
    const sealed = sealFields(data, clearSeq, 'key-1', key);
    const part = sealedPartOf(sealed);
    const opened = part && openFields(sealed, part, key);

    expect(Object.getPrototypeOf(opened)).toBe(Object.prototype);
    expect(Object.keys(opened ?? {})).toEqual(['seq', '__proto__']);
    expect(Object.prototype.hasOwnProperty.call(opened, SEALED_FIELD)).toBe(false);
  });
});
