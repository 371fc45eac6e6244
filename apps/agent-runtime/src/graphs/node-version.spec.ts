import { describe, expect, it } from '@jest/globals';
import { nodeVersionProblem } from './node-version.js';

describe('nodeVersionProblem', () => {
  it.each([
    ['20', '20.0.0'],
    ['20', '22.11.0'],
    ['22.5', '22.5.0'],
    ['22.5.1', '22.10.0'],
    ['v20', '20.1.0'],
  ])('accepts node_version %s on Node %s', (required, running) => {
    expect(nodeVersionProblem(required, running)).toBeUndefined();
  });

  it.each([
    ['22', '20.18.0'],
    ['22.5', '22.4.9'],
    ['22.5.1', '22.5.0'],
    ['99', '22.11.0'],
  ])('refuses node_version %s on Node %s, naming both', (required, running) => {
    expect(nodeVersionProblem(required, running)).toBe(
      `"node_version" requires Node ${required} or newer; this runtime runs Node ${running}`,
    );
  });

  it('refuses a node_version that is not a version', () => {
    expect(nodeVersionProblem('lts', '22.0.0')).toContain('must be a version');
  });
});
