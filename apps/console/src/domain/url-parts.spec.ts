import { urlParts } from './url-parts';

describe('urlParts', () => {
  it('cuts before separators, keeping the scheme whole', () => {
    expect(urlParts('https://shop-agent.eu-west.example.com:8443/runtime?x=1')).toEqual([
      'https://shop',
      '-agent',
      '.eu',
      '-west',
      '.example',
      '.com',
      ':8443',
      '/runtime',
      '?x',
      '=1',
    ]);
  });

  it('gives the whole back when joined, and keeps runs of separators together', () => {
    const url = 'http://127.0.0.1:54321/a//b--c';
    expect(urlParts(url).join('')).toBe(url);
    expect(urlParts(url)).toContain('//b');
    expect(urlParts('')).toEqual([]);
  });
});
