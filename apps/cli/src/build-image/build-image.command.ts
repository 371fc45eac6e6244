import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { basename, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { parseCommandArgs, usageError } from '#libs/config';
import { BERTH_VERSION } from '#libs/config';
import { detectInstall } from '#libs/install-commands';
import type { CliEnvironment } from '../cli.config.js';
import { UsageError } from '../commands/scripts.js';
import { DOCKERFILE_MARK, DOCKERIGNORE, runtimeDockerfile } from './runtime-dockerfile.js';

export const BUILD_IMAGE_HELP = `Usage: berth build-image [dir] [--config FILE] [--base IMAGE] [--output FILE]

Writes the Dockerfile of an application's runtime image, for deployments that name an image
(image_uri) and run on a cluster listener: Berth's own image with the application and its
dependencies in it, the runtime serving it on port 8000. Build it with docker build and push it
where the cluster pulls from; nothing is built here.

  dir             the application's directory (default: the current one)
  --config FILE   its graph configuration, inside dir (default: langgraph.json)
  --base IMAGE    Berth's image, built from Berth's Dockerfile (default: berth:${BERTH_VERSION})
  --output FILE   where to write (default: <dir>/Dockerfile); a file berth build-image did not
                  write is never overwritten

A .dockerignore that leaves out node_modules, .berth, .git and .env is written beside it unless
the directory has one.`;

interface GraphConfigForImage {
  readonly dockerfileLines: readonly string[];
  readonly nodeVersion: string | undefined;
}

async function readGraphConfig(file: string): Promise<GraphConfigForImage> {
  const text = await readFile(file, 'utf8').catch(() => {
    throw new UsageError(`no graph configuration at ${file} (use --config to name another file)`);
  });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UsageError(`${file} is not JSON`);
  }
  const config = json as { dockerfile_lines?: unknown; node_version?: unknown };
  const lines = config.dockerfile_lines ?? [];
  if (!Array.isArray(lines) || !lines.every((line) => typeof line === 'string')) {
    throw new UsageError(`${file}: "dockerfile_lines" must be a list of strings`);
  }
  const nodeVersion = typeof config.node_version === 'string' ? config.node_version : undefined;
  return { dockerfileLines: lines, nodeVersion };
}

function insideDir(dir: string, given: string, option: string): string {
  const file = resolve(dir, given);
  const inside = relative(dir, file);
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) {
    throw new UsageError(`${option} must name a file inside ${dir}, got "${given}"`);
  }
  return inside.split(sep).join('/');
}

async function refuseForeignFile(file: string): Promise<void> {
  if (!existsSync(file)) return;
  const first = (await readFile(file, 'utf8')).split('\n', 1)[0];
  if (first !== DOCKERFILE_MARK) {
    throw new UsageError(
      `${file} exists and berth build-image did not write it: name another with --output`,
    );
  }
}

export async function buildImage(args: readonly string[], _env: CliEnvironment): Promise<void> {
  const { values, positionals } = parseCommandArgs(BUILD_IMAGE_HELP, {
    args: [...args],
    allowPositionals: true,
    options: {
      config: { type: 'string' },
      base: { type: 'string' },
      output: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(BUILD_IMAGE_HELP);
    return;
  }
  if (positionals.length > 1)
    throw usageError(`unexpected argument ${positionals.slice(1).join(' ')}`, BUILD_IMAGE_HELP);
  const dir = resolve(positionals[0] ?? '.');
  const configPath = insideDir(dir, values.config ?? 'langgraph.json', '--config');
  const config = await readGraphConfig(join(dir, configPath));
  const output = resolve(values.output ?? join(dir, 'Dockerfile'));
  await refuseForeignFile(output);
  const baseImage = values.base ?? `berth:${BERTH_VERSION}`;
  const dockerfile = runtimeDockerfile({
    name: basename(dir),
    baseImage,
    configPath,
    dockerfileLines: config.dockerfileLines,
    install: detectInstall((file) => existsSync(join(dir, file))),
    berthVersion: BERTH_VERSION,
  });
  await writeFile(output, dockerfile);
  console.log(`Wrote ${output}`);
  const ignore = join(dir, '.dockerignore');
  if (!existsSync(ignore)) {
    await writeFile(ignore, DOCKERIGNORE);
    console.log(`Wrote ${ignore}`);
  }
  if (config.nodeVersion) {
    console.log(
      `Note: node_version ${config.nodeVersion} is not applied: the image runs the Node.js of ${baseImage}.`,
    );
  }
}
