import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The fixture page on `@langchain/react`'s `useStream`. */
export const USE_STREAM_PAGE_SOURCE = resolve('test/fixtures/use-stream-page');

/**
 * Builds the fixture page into `outDir` with Vite's JS API: unminified, no source maps, its cache
 * in `cacheDir` (never in node_modules). In a process of its own: Vite's bundler does not finish
 * inside Jest's module sandbox.
 */
export async function buildUseStreamPage(outDir: string, cacheDir: string): Promise<void> {
  const script = resolve('dist/test/support/use-stream-page.js');
  const child = spawn(process.execPath, [script, outDir, cacheDir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`The useStream page did not build (exit ${code}):\n${output}`);
}

async function build(outDir: string, cacheDir: string): Promise<void> {
  const { build: viteBuild } = await import('vite');
  await viteBuild({
    root: USE_STREAM_PAGE_SOURCE,
    base: './',
    logLevel: 'error',
    configFile: false,
    cacheDir,
    oxc: { jsx: { runtime: 'automatic' } },
    build: {
      outDir,
      emptyOutDir: true,
      minify: false,
      sourcemap: false,
      reportCompressedSize: false,
      chunkSizeWarningLimit: 4096,
    },
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [outDir, cacheDir] = process.argv.slice(2);
  if (outDir === undefined || cacheDir === undefined) {
    throw new Error('usage: use-stream-page.js <outDir> <cacheDir>');
  }
  await build(resolve(outDir), resolve(cacheDir));
}
