import { describe, expect, it } from '@jest/globals';
import { readsUiBundleFile } from './ui-access.js';

describe('readsUiBundleFile', () => {
  it.each([
    ['GET', '/ui/agent/entrypoint.js', true],
    ['HEAD', '/ui/agent/entrypoint.css?v=2', true],
    ['POST', '/ui/agent/entrypoint.js', false],
    ['POST', '/ui/agent', false],
    ['GET', '/ui/agent', false],
    ['GET', '/ui/agent/nested/file.js', false],
    ['GET', '/uix/agent/entrypoint.js', false],
    ['GET', '/threads/ui/agent', false],
  ])('%s %s: %s', (method, url, reads) => {
    expect(readsUiBundleFile(method, url)).toBe(reads);
  });
});
