import { describe, expect, it } from '@jest/globals';
import { defaultAssistantId, uuid5 } from './uuid5.js';

describe('uuid5', () => {
  it('matches the RFC 4122 example for the DNS namespace', () => {
    expect(uuid5('www.example.com', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe(
      '2ed6657d-e927-568b-95e1-2665a8aea6a2',
    );
  });

  it('gives a graph the default assistant id that the reference server gives it', () => {
    // From the reference capture: graph "echo" has assistant 046b5dc7-2108-582c-9c6c-31d556d138f0.
    expect(defaultAssistantId('echo')).toBe('046b5dc7-2108-582c-9c6c-31d556d138f0');
  });
});
