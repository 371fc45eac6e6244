import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { cliVersion } from './version.js';

describe('cliVersion', () => {
  it("is the version of Berth's package.json, found above the command's file", () => {
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    expect(cliVersion()).toBe(version);
    expect(cliVersion()).toMatch(/^\d+\.\d+\.\d+/);
  });
});
