import { execFile } from 'node:child_process';
import { access, constants, lstat, readlink, realpath } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { extraCertificatesFile } from './extra-certificates.js';
import type { JailTools } from './jail.js';

const run = promisify(execFile);
const SEARCHED = ['/usr/bin', '/usr/local/bin', '/bin', '/usr/sbin', '/sbin'];
const TOP_LEVEL = ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

/** The first executable of that name in the usual system directories. */
export async function findProgram(name: string): Promise<string | undefined> {
  for (const dir of SEARCHED) {
    const path = join(dir, name);
    if (
      await access(path, constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return path;
  }
  return undefined;
}

/** Node's installation when it is not under /usr (nvm, /opt): the jail must show it too. */
async function nodePrefix(): Promise<string | undefined> {
  const prefix = dirname(dirname(await realpath(process.execPath)));
  return prefix === '/usr' || prefix.startsWith('/usr/') ? undefined : prefix;
}

/**
 * bubblewrap and setpriv, checked to work here (bubblewrap needs root, or user namespaces, to
 * make its namespaces); undefined with the reason when a jail cannot be made on this machine.
 */
export async function findJailTools(): Promise<JailTools | string> {
  const [bwrap, setpriv] = await Promise.all([findProgram('bwrap'), findProgram('setpriv')]);
  if (!bwrap) return 'bubblewrap is not installed (apt-get install bubblewrap)';
  if (!setpriv) return 'setpriv is not installed (apt-get install util-linux)';
  const systemDirs = ['/usr', '/etc'];
  const systemLinks: { path: string; target: string }[] = [];
  for (const path of TOP_LEVEL) {
    const found = await lstat(path).catch(() => undefined);
    if (found?.isSymbolicLink()) systemLinks.push({ path, target: await readlink(path) });
    else if (found?.isDirectory()) systemDirs.push(path);
  }
  const prefix = await nodePrefix();
  if (prefix) systemDirs.push(prefix);
  const certificates = await extraCertificatesFile();
  const extraCertificates =
    certificates && !systemDirs.some((dir) => certificates.startsWith(`${dir}/`))
      ? certificates
      : undefined;
  const probe = [bwrap, '--unshare-pid', '--ro-bind', '/', '/', '--proc', '/proc', '--dev', '/dev'];
  try {
    await run(probe[0] ?? bwrap, [...probe.slice(1), '--', '/bin/true'], { timeout: 10_000 });
  } catch (error) {
    return `bubblewrap cannot make a sandbox here: ${(error as Error).message.split('\n')[0]}`;
  }
  return { bwrap, setpriv, systemDirs, systemLinks, extraCertificates };
}
