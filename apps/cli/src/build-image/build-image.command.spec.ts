import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from '../commands/scripts.js';
import { buildImage } from './build-image.command.js';

const env = {} as Parameters<typeof buildImage>[1];

describe('berth build-image', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'berth-build-image-'));
    jest.spyOn(console, 'log').mockImplementation(() => undefined);
  });

  afterEach(async () => {
    jest.restoreAllMocks();
    await rm(dir, { recursive: true, force: true });
  });

  async function app(config: object, files: Record<string, string> = {}): Promise<void> {
    await writeFile(join(dir, 'langgraph.json'), JSON.stringify(config));
    for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  }

  it('writes the Dockerfile and a .dockerignore for the application in the directory', async () => {
    await app(
      { graphs: { agent: './agent.ts:graph' }, dockerfile_lines: ['RUN echo hello'] },
      { 'package.json': '{}', 'pnpm-lock.yaml': '' },
    );
    await buildImage([dir, '--base', 'registry.example/berth:0.1.0'], env);
    const dockerfile = await readFile(join(dir, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^FROM registry\.example\/berth:0\.1\.0$/m);
    expect(dockerfile).toMatch(/^RUN echo hello$/m);
    expect(dockerfile).toMatch(/^RUN pnpm install --frozen-lockfile$/m);
    expect(await readFile(join(dir, '.dockerignore'), 'utf8')).toMatch(/^\.env$/m);
  });

  it('writes over its own Dockerfile, never over another', async () => {
    await app({ graphs: {} });
    await buildImage([dir], env);
    await buildImage([dir], env);
    await writeFile(join(dir, 'Dockerfile'), 'FROM python:3\n');
    await expect(buildImage([dir], env)).rejects.toThrow(/did not write it/);
    await buildImage([dir, '--output', join(dir, 'Dockerfile.berth')], env);
    expect(await readFile(join(dir, 'Dockerfile'), 'utf8')).toBe('FROM python:3\n');
  });

  it('keeps a .dockerignore the application has', async () => {
    await app({ graphs: {} }, { '.dockerignore': 'mine\n' });
    await buildImage([dir], env);
    expect(await readFile(join(dir, '.dockerignore'), 'utf8')).toBe('mine\n');
  });

  it('refuses what it cannot make an image of', async () => {
    await expect(buildImage([dir], env)).rejects.toThrow(/no graph configuration/);
    await app({ graphs: {}, dockerfile_lines: 'RUN x' });
    await expect(buildImage([dir], env)).rejects.toThrow(/must be a list of strings/);
    await expect(buildImage([dir, '--config', '../elsewhere.json'], env)).rejects.toThrow(
      UsageError,
    );
  });
});
