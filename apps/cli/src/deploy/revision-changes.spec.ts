import { describe, expect, it } from '@jest/globals';
import type { RevisionChanges } from '#libs/control-plane-client';
import { formatChanges } from './revision-changes.js';

const CHANGES: RevisionChanges = {
  revision_id: 'r2',
  against: 'r1',
  source_kept: true,
  source_reason: null,
  capped: null,
  files: [
    {
      path: 'NOTES.md',
      change: 'removed',
      diff: '--- a/NOTES.md\n+++ b/NOTES.md\n@@ -1,1 +0,0 @@\n-notes\n',
    },
    { path: 'logo.png', change: 'modified', reason: 'binary: named only' },
    {
      path: 'src/new.ts',
      change: 'added',
      diff: '--- a/src/new.ts\n+++ b/src/new.ts\n@@ -0,0 +1,1 @@\n+export {};\n',
    },
  ],
  dependencies: [
    {
      name: 'zod',
      kind: 'dependencies',
      from: '^3.22.0',
      to: '^3.23.0',
      resolved_from: '3.22.4',
      resolved_to: '3.23.8',
    },
    {
      name: 'added',
      kind: 'dependencies',
      from: null,
      to: '2.0.0',
      resolved_from: null,
      resolved_to: null,
    },
  ],
  graphs: [{ graph_id: 'echo', change: 'added', from: null, to: './src/echo.ts:graph' }],
  secrets: [{ name: 'GREETING', change: 'changed' }],
  config: [{ field: 'resource_spec.cpu', from: 1, to: 2 }],
  commit_range: null,
};

describe('berth deploy revisions --changes', () => {
  it('prints files with +/-/~, dependencies from -> to, graphs, secrets by name, settings, then the diffs', () => {
    expect(formatChanges(CHANGES)).toBe(
      [
        'Revision r2 against r1',
        '',
        'Files:',
        '  - NOTES.md',
        '  ~ logo.png  (binary: named only)',
        '  + src/new.ts',
        '',
        'Dependencies:',
        '  zod: ^3.22.0 (3.22.4) -> ^3.23.0 (3.23.8)',
        '  added: (none) -> 2.0.0',
        '',
        'Graphs:',
        '  + echo: (none) -> ./src/echo.ts:graph',
        '',
        'Secrets (names only):',
        '  GREETING: changed',
        '',
        'Settings:',
        '  resource_spec.cpu: 1 -> 2',
        '',
        '--- a/NOTES.md',
        '+++ b/NOTES.md',
        '@@ -1,1 +0,0 @@',
        '-notes',
        '--- a/src/new.ts',
        '+++ b/src/new.ts',
        '@@ -0,0 +1,1 @@',
        '+export {};',
      ].join('\n'),
    );
  });

  it('says when the sources were not compared, and gives a git source its commit range', () => {
    const printed = formatChanges({
      ...CHANGES,
      against: null,
      source_kept: false,
      source_reason: 'revision r1: its uploaded tarball is no longer kept',
      files: [],
      commit_range: {
        from: null,
        to: 'abc',
        commits: null,
        truncated: false,
        reason: 'history is not kept',
      },
    });
    expect(printed).toContain("against nothing (its deployment's first revision)");
    expect(printed).toContain(
      'Sources not compared: revision r1: its uploaded tarball is no longer kept',
    );
    expect(printed).toContain('Commits:\n  (none)..abc\n  (history is not kept)');
    expect(printed).not.toContain('Files:');
  });
});
