import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { packDirectory } from '#libs/source-archive';
import type { SourceSnapshot } from '../deployments/domain/revision-changes.js';
import { SOURCE_READ_LIMITS } from './source-file.js';
import { tarballSnapshot } from './tarball-snapshot.js';
import { treeSnapshot } from './tree-snapshot.js';

const filesOf = (snapshot: SourceSnapshot) => {
  if (!snapshot.kept) throw new Error(snapshot.reason);
  return Object.fromEntries(
    [...snapshot.files].map(([path, file]) => [path, file.text ?? file.unread]),
  );
};

describe("reading a revision's source to compare it", () => {
  let dir: string;
  let outside: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'berth-changes-'));
    outside = await mkdtemp(join(tmpdir(), 'berth-outside-'));
    await writeFile(join(outside, 'secret.txt'), "not the tenant's\n");
    await mkdir(join(dir, 'src'));
    await writeFile(join(dir, 'src', 'agent.ts'), 'export {};\n');
    await writeFile(join(dir, 'logo.png'), Buffer.from([0x89, 0x50, 0x00, 0x01]));
    await writeFile(join(dir, 'big.txt'), 'x'.repeat(SOURCE_READ_LIMITS.maxTextBytes + 1));
    await symlink(join(outside, 'secret.txt'), join(dir, 'src', 'escape.txt'));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  });

  it('reads a checkout on disk without following a link, leaving out node_modules', async () => {
    await mkdir(join(dir, 'node_modules', 'zod'), { recursive: true });
    await writeFile(join(dir, 'node_modules', 'zod', 'index.js'), '');
    await symlink(outside, join(dir, 'linked-dir'));
    expect(filesOf(await treeSnapshot(dir, 'langgraph.json', undefined))).toEqual({
      'big.txt': `big.txt is larger than ${SOURCE_READ_LIMITS.maxTextBytes} bytes: not read`,
      'linked-dir': `a symbolic link to ${outside}: never followed`,
      'logo.png': 'binary: named only',
      'src/agent.ts': 'export {};\n',
      'src/escape.txt': `a symbolic link to ${join(outside, 'secret.txt')}: never followed`,
    });
  });

  it('says a checkout is no longer kept', async () => {
    expect(await treeSnapshot(join(dir, 'gone'), 'langgraph.json', undefined)).toEqual({
      kept: false,
      reason: expect.stringMatching(/no longer kept/),
    });
  });

  it('reads an uploaded tarball as it streams, never extracting it', async () => {
    await rm(join(dir, 'src', 'escape.txt'));
    await symlink('agent.ts', join(dir, 'src', 'alias.ts'));
    const { archive } = await packDirectory(dir);
    const tarball = join(outside, 'source.tar.gz');
    await writeFile(tarball, archive);
    const sha256 = createHash('sha256').update(archive).digest('hex');
    const snapshot = await tarballSnapshot(tarball, sha256, 'langgraph.json');
    expect(filesOf(snapshot)).toMatchObject({
      'big.txt': `larger than ${SOURCE_READ_LIMITS.maxTextBytes} bytes: named only`,
      'logo.png': 'binary: named only',
      'src/agent.ts': 'export {};\n',
      'src/alias.ts': 'a symbolic link to agent.ts: never followed',
    });
    expect(await tarballSnapshot(tarball, 'f'.repeat(64), 'langgraph.json')).toEqual({
      kept: false,
      reason: expect.stringMatching(/not the one the revision recorded/),
    });
  });

  it('says a tarball that is not one could not be read', async () => {
    const broken = join(outside, 'broken.tar.gz');
    await writeFile(broken, gzipSync(Buffer.from('only gzip around text '.repeat(40))));
    expect(await tarballSnapshot(broken, null, 'langgraph.json')).toEqual({
      kept: false,
      reason: expect.stringMatching(/^the tarball could not be read: /),
    });
  });
});
