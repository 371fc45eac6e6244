import { basename, resolve } from 'node:path';

/** The longest deployment name the control plane accepts. */
const MAX_NAME_LENGTH = 128;

/**
 * A deployment name from a directory's name: lowercased, every run of characters other than
 * a-z and 0-9 collapsed to one dash, dashes trimmed from both ends. Empty when nothing is left.
 */
export function projectNameFrom(dirName: string): string {
  return dirName
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_NAME_LENGTH)
    .replace(/-+$/, '');
}

/** The default deployment name of the project in `dir` (resolved against the current one). */
export function defaultDeploymentName(dir: string): string {
  return projectNameFrom(basename(resolve(dir)));
}
