import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import type { DeploymentSource } from './deployment.types.js';
import {
  compareRevisions,
  COMPARISON_LIMITS,
  type ComparedRevision,
  type SourceFile,
  type SourceSnapshot,
} from './revision-changes.js';

const text = (content: string): SourceFile => ({
  bytes: Buffer.byteLength(content),
  sha256: createHash('sha256').update(content).digest('hex'),
  text: content,
});
const binary = (seed: string): SourceFile => ({
  bytes: 10,
  sha256: createHash('sha256').update(seed).digest('hex'),
  unread: 'binary: named only',
});
const tree = (files: Record<string, SourceFile>): SourceSnapshot => ({
  kept: true,
  files: new Map(Object.entries(files)),
});
const json = (value: unknown): SourceFile => text(`${JSON.stringify(value, null, 2)}\n`);

function revision(
  id: string,
  source: SourceSnapshot,
  secrets: Record<string, string> = {},
  extra: { source?: DeploymentSource; commit?: string; cpu?: number } = {},
): ComparedRevision {
  return {
    revision: {
      revision_id: id,
      source: extra.source ?? 'internal_source',
      source_revision_config: {
        repo_ref: null,
        graph_config_path: 'langgraph.json',
        image_uri: null,
        source_tarball_path: `uploads/${id}.tar.gz`,
        repo_commit_sha: extra.commit ?? null,
      },
      resource_spec: extra.cpu === undefined ? null : ({ cpu: extra.cpu } as never),
      source_tarball_sha256: null,
      created_at: '2026-12-02T00:00:00.000Z',
    },
    source,
    secrets: new Map(Object.entries(secrets)),
  };
}

const OLD_FILES = {
  'README.md': text('# app\n'),
  'src/agent.ts': text('export const a = 1;\nexport const b = 2;\n'),
  'logo.png': binary('old'),
  'package.json': json({
    dependencies: { zod: '^3.22.0', left: '1.0.0' },
    devDependencies: { jest: '^30.0.0' },
  }),
  'package-lock.json': json({
    lockfileVersion: 3,
    packages: {
      '': {},
      'node_modules/zod': { version: '3.22.4' },
      'node_modules/left': { version: '1.0.0' },
      'node_modules/jest': { version: '30.0.1' },
      'node_modules/jest/node_modules/zod': { version: '1.0.0' },
    },
  }),
  'langgraph.json': json({ graphs: { agent: './src/agent.ts:graph' } }),
};

describe('what changed between two revisions', () => {
  it('names files added, removed and modified, with a unified diff of the text ones', () => {
    const before = revision('r1', tree(OLD_FILES));
    const files: Record<string, SourceFile> = {
      ...OLD_FILES,
      'src/agent.ts': text('export const a = 1;\nexport const b = 3;\n'),
      'src/new.ts': text('export {};\n'),
      'logo.png': binary('new'),
    };
    delete files['README.md'];
    const after = revision('r2', tree(files));
    const changes = compareRevisions(after, before);
    expect(changes).toMatchObject({
      revision_id: 'r2',
      against: 'r1',
      source_kept: true,
      capped: null,
    });
    expect(changes.files).toEqual([
      {
        path: 'README.md',
        change: 'removed',
        diff: '--- a/README.md\n+++ b/README.md\n@@ -1,1 +0,0 @@\n-# app\n',
      },
      { path: 'logo.png', change: 'modified', reason: 'binary: named only' },
      {
        path: 'src/agent.ts',
        change: 'modified',
        diff:
          '--- a/src/agent.ts\n+++ b/src/agent.ts\n@@ -1,2 +1,2 @@\n export const a = 1;\n' +
          '-export const b = 2;\n+export const b = 3;\n',
      },
      {
        path: 'src/new.ts',
        change: 'added',
        diff: '--- a/src/new.ts\n+++ b/src/new.ts\n@@ -0,0 +1,1 @@\n+export {};\n',
      },
    ]);
  });

  it('moves dependencies from package.json, with the versions package-lock.json resolved', () => {
    const before = revision('r1', tree(OLD_FILES));
    const after = revision(
      'r2',
      tree({
        ...OLD_FILES,
        'package.json': json({
          dependencies: { zod: '^3.23.0', added: '^2.0.0' },
          devDependencies: { jest: '^30.0.0' },
        }),
        'package-lock.json': json({
          lockfileVersion: 3,
          packages: {
            'node_modules/zod': { version: '3.23.8' },
            'node_modules/added': { version: '2.1.0' },
            'node_modules/jest': { version: '30.0.1' },
          },
        }),
      }),
    );
    expect(compareRevisions(after, before).dependencies).toEqual([
      {
        name: 'added',
        kind: 'dependencies',
        from: null,
        to: '^2.0.0',
        resolved_from: null,
        resolved_to: '2.1.0',
      },
      {
        name: 'left',
        kind: 'dependencies',
        from: '1.0.0',
        to: null,
        resolved_from: '1.0.0',
        resolved_to: null,
      },
      {
        name: 'zod',
        kind: 'dependencies',
        from: '^3.22.0',
        to: '^3.23.0',
        resolved_from: '3.22.4',
        resolved_to: '3.23.8',
      },
    ]);
  });

  it('sees a dependency the lockfile moved while package.json kept its range', () => {
    const after = revision(
      'r2',
      tree({
        ...OLD_FILES,
        'package-lock.json': json({
          lockfileVersion: 1,
          dependencies: {
            zod: { version: '3.22.5' },
            left: { version: '1.0.0' },
            jest: { version: '30.0.1' },
          },
        }),
      }),
    );
    expect(compareRevisions(after, revision('r1', tree(OLD_FILES))).dependencies).toEqual([
      {
        name: 'zod',
        kind: 'dependencies',
        from: '^3.22.0',
        to: '^3.22.0',
        resolved_from: '3.22.4',
        resolved_to: '3.22.5',
      },
    ]);
  });

  it('names graphs langgraph.json added, removed or moved', () => {
    const after = revision(
      'r2',
      tree({
        ...OLD_FILES,
        'langgraph.json': json({
          graphs: { agent: './src/other.ts:graph', env: { path: './src/env.ts:graph' } },
        }),
      }),
    );
    expect(compareRevisions(after, revision('r1', tree(OLD_FILES))).graphs).toEqual([
      {
        graph_id: 'agent',
        change: 'modified',
        from: './src/agent.ts:graph',
        to: './src/other.ts:graph',
      },
      { graph_id: 'env', change: 'added', from: null, to: './src/env.ts:graph' },
    ]);
  });

  it('names secrets added, removed and changed by their fingerprints, never with a value', () => {
    const before = revision('r1', tree({}), {
      KEPT: 'print-1',
      CHANGED: 'print-2',
      GONE: 'print-3',
    });
    const after = revision('r2', tree({}), { KEPT: 'print-1', CHANGED: 'print-9', NEW: 'print-4' });
    const changes = compareRevisions(after, before);
    expect(changes.secrets).toEqual([
      { name: 'CHANGED', change: 'changed' },
      { name: 'GONE', change: 'removed' },
      { name: 'NEW', change: 'added' },
    ]);
    expect(JSON.stringify(changes)).not.toMatch(/print-/);
  });

  it("lists the revision's settings that changed, the resource spec field by field", () => {
    const before = revision('r1', tree({}), {}, { cpu: 1 });
    const after = revision('r2', tree({}), {}, { cpu: 2 });
    expect(compareRevisions(after, before).config).toEqual([
      { field: 'resource_spec.cpu', from: 1, to: 2 },
      {
        field: 'source_revision_config.source_tarball_path',
        from: 'uploads/r1.tar.gz',
        to: 'uploads/r2.tar.gz',
      },
    ]);
  });

  it('compares a first revision with nothing: every file added', () => {
    const changes = compareRevisions(revision('r1', tree({ 'a.txt': text('a\n') })), undefined);
    expect(changes).toMatchObject({ against: null, files: [{ path: 'a.txt', change: 'added' }] });
  });

  it('says when a source is no longer kept, and still compares what the revisions record', () => {
    const gone = revision(
      'r1',
      { kept: false, reason: 'its uploaded tarball is no longer kept' },
      { A: '1' },
    );
    const changes = compareRevisions(revision('r2', tree(OLD_FILES), { A: '2' }), gone);
    expect(changes).toMatchObject({
      source_kept: false,
      source_reason: 'revision r1: its uploaded tarball is no longer kept',
      files: [],
      dependencies: [],
      graphs: [],
      secrets: [{ name: 'A', change: 'changed' }],
    });
  });

  it('names files only past the size cap, and stops diffing past the total', () => {
    const big = 'x'.repeat(COMPARISON_LIMITS.maxDiffFileBytes) + '\n';
    const limits = { ...COMPARISON_LIMITS, maxTotalDiffBytes: 80 };
    const changes = compareRevisions(
      revision('r2', tree({ 'big.txt': text(big), 'a.txt': text('a\n'), 'b.txt': text('b\n') })),
      revision('r1', tree({})),
      limits,
    );
    expect(changes.files).toEqual([
      { path: 'a.txt', change: 'added', diff: '--- a/a.txt\n+++ b/a.txt\n@@ -0,0 +1,1 @@\n+a\n' },
      { path: 'b.txt', change: 'added', reason: "the answer's diffs reached 80 bytes" },
      {
        path: 'big.txt',
        change: 'added',
        reason: `larger than ${COMPARISON_LIMITS.maxDiffFileBytes} bytes: named only`,
      },
    ]);
    expect(changes.capped).toBe('1 diffs omitted past 80 bytes of diffs');
  });

  it("gives a git source's commit range with the commits its build listed since the one before", () => {
    const before = revision('r1', tree({}), {}, { source: 'git_host', commit: 'aaa' });
    const after = revision('r2', tree({}), {}, { source: 'git_host', commit: 'ccc' });
    const commits = [
      { sha: 'ccc', message: 'third' },
      { sha: 'bbb', message: 'second' },
    ];
    const listed = {
      ...after,
      commitsSince: { from_sha: 'aaa', commits, truncated: true, reason: null },
    };
    expect(compareRevisions(listed, before).commit_range).toEqual({
      from: 'aaa',
      to: 'ccc',
      commits,
      truncated: true,
      reason: null,
    });
    const older = revision('r0', tree({}), {}, { source: 'git_host', commit: '999' });
    expect(compareRevisions(listed, older).commit_range).toMatchObject({
      from: '999',
      commits: null,
      reason: expect.stringMatching(/compare against that revision/),
    });
    expect(compareRevisions(after, before).commit_range).toEqual({
      from: 'aaa',
      to: 'ccc',
      commits: null,
      truncated: false,
      reason: expect.stringMatching(/listed no commits/),
    });
    expect(
      compareRevisions(revision('r2', tree({})), revision('r1', tree({}))).commit_range,
    ).toBeNull();
  });
});
