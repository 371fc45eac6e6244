import { describe, expect, it } from '@jest/globals';
import { TenantDirectory } from './tenant-directory.js';

const A = '00000000-0000-4000-8000-00000000000a';
const B = '00000000-0000-4000-8000-00000000000b';

describe('TenantDirectory', () => {
  const keys = [
    { tenantId: A, key: 'key-of-a' },
    { tenantId: B, key: 'key-of-b' },
    { tenantId: A, key: 'second-key-of-a' },
  ];

  it('identifies each key as its tenant, and knows no other key', () => {
    const directory = new TenantDirectory(keys);
    expect(directory.identify('key-of-b')).toEqual({
      caller: { tenant_id: B, key_id: expect.stringMatching(/^key_[0-9a-f]{12}$/) },
    });
    expect(directory.identify('second-key-of-a')).toMatchObject({ caller: { tenant_id: A } });
    expect(directory.identify('key-of-c')).toBeUndefined();
  });

  it("refuses the keys of refused tenants, saying whose they are, and no one else's", () => {
    const directory = new TenantDirectory(keys, [B]);
    expect(directory.identify('key-of-b')).toEqual({ refusedTenant: B });
    expect(directory.identify('key-of-a')).toMatchObject({ caller: { tenant_id: A } });
  });
});
