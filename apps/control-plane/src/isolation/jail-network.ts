import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chmod, lstat, mkdir, readlink, realpath, writeFile } from 'node:fs/promises';
import { networkInterfaces } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { findProgram } from './jail-tools.js';

/**
 * What gives each jail a network of its own: bubblewrap's empty network namespace, slirp4netns's
 * user-mode stack as its only way out (connections leave as the slirp4netns process's own, from
 * the host's namespace), and routes that refuse whatever is not the internet.
 */
export type JailNetworkTools = {
  readonly slirp4netns: string;
  readonly nsenter: string;
  readonly ip: string;
  /** Bound over /etc/resolv.conf in every jail: slirp4netns's resolver, the one private address let through. */
  readonly resolvConf: string;
  /** Where it is bound: /etc/resolv.conf, or the file that links to (see resolverMountPoint). */
  readonly resolverMountPoint: string;
  /** Destinations refused inside every jail (`ip route add prohibit`). */
  readonly refused: readonly string[];
};

/**
 * The file a jail's /etc/resolv.conf leads to: itself, or where the host's links (systemd-resolved
 * links it to its stub under /run, a directory a jail has not), followed even when it dangles.
 */
export async function resolverMountPoint(path = '/etc/resolv.conf'): Promise<string> {
  const found = await realpath(path).catch(() => undefined);
  if (found !== undefined) return found;
  let current = path;
  for (let hops = 0; hops < 40; hops += 1) {
    const link = await lstat(current).catch(() => undefined);
    if (!link?.isSymbolicLink()) return current;
    current = resolve(dirname(current), await readlink(current));
  }
  return path;
}

/** slirp4netns's resolver, forwarding to the host's: its network's only address a jail may reach. */
export const JAIL_RESOLVER = '10.0.2.3';

/**
 * Refused to every jail: the host's loopback is its own (a namespace of its own), and slirp4netns's
 * gateway, the host's loopback seen from outside, is closed by `--disable-host-loopback`; these are
 * the rest that is not the internet: private, shared, link-local (a cloud's metadata address),
 * multicast and reserved ranges, and each of the host's own addresses.
 */
export const REFUSED_RANGES = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '224.0.0.0/4',
  '240.0.0.0/4',
];

/** The ranges refused in a jail on a host with these IPv4 addresses. */
export function refusedDestinations(hostAddresses: readonly string[]): string[] {
  return [...REFUSED_RANGES, ...hostAddresses.map((address) => `${address}/32`)];
}

/** The `ip -batch` lines that refuse them; a jail's own subnet (the resolver) stays reachable. */
export const refusalRoutes = (refused: readonly string[]): string =>
  refused.map((range) => `route add prohibit ${range}\n`).join('');

function hostIpv4Addresses(): string[] {
  return Object.values(networkInterfaces())
    .flat()
    .flatMap((address) => (address && address.family === 'IPv4' ? [address.address] : []));
}

/**
 * slirp4netns, nsenter and ip, checked to make a network here; the reason when they cannot, so
 * that the platform starts all the same and says that the jails' network is the host's.
 */
export async function findJailNetworkTools(
  bwrap: string,
  dataDir: string,
): Promise<JailNetworkTools | string> {
  const [slirp4netns, nsenter, ip] = await Promise.all([
    findProgram('slirp4netns'),
    findProgram('nsenter'),
    findProgram('ip'),
  ]);
  if (!slirp4netns) return 'slirp4netns is not installed (apt-get install slirp4netns)';
  if (!nsenter) return 'nsenter is not installed (apt-get install util-linux)';
  if (!ip) return 'ip is not installed (apt-get install iproute2)';
  const dir = join(dataDir, 'jail-network');
  await mkdir(dir, { recursive: true, mode: 0o755 });
  await chmod(dir, 0o755);
  const resolvConf = join(dir, 'resolv.conf');
  await writeFile(resolvConf, `nameserver ${JAIL_RESOLVER}\n`, { mode: 0o644 });
  await chmod(resolvConf, 0o644);
  const tools: JailNetworkTools = {
    slirp4netns,
    nsenter,
    ip,
    resolvConf,
    resolverMountPoint: await resolverMountPoint(),
    refused: refusedDestinations(hostIpv4Addresses()),
  };
  try {
    const probe = spawn(
      bwrap,
      [
        '--unshare-net',
        '--ro-bind',
        '/',
        '/',
        '--info-fd',
        '3',
        '--block-fd',
        '4',
        '--',
        '/bin/true',
      ],
      { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] },
    );
    const exited = once(probe, 'exit');
    const network = await attachNetwork(tools, probe).catch((error: unknown) => {
      probe.kill('SIGKILL');
      throw error;
    });
    await exited;
    network.release();
    if (probe.exitCode !== 0) return `a jail with its own network did not run (${probe.exitCode})`;
  } catch (error) {
    return `slirp4netns cannot give a jail a network here: ${(error as Error).message.split('\n')[0]}`;
  }
  return tools;
}

/** A jail's network, up: `release` ends its slirp4netns (ending with the control plane too). */
export type JailNetwork = { readonly release: () => void };

const SETUP_TIMEOUT_MS = 20_000;

/**
 * Gives the jail bubblewrap is making (`--unshare-net --info-fd 3 --block-fd 4`, spawned with
 * those as pipes) its network: reads the namespace's process from the info pipe, starts
 * slirp4netns on it (its own sandbox and seccomp filter; it ends when its exit pipe closes, so
 * also when the control plane dies), refuses the ranges, then lets the command start.
 */
export async function attachNetwork(
  tools: JailNetworkTools,
  child: ChildProcess,
): Promise<JailNetwork> {
  const info = child.stdio[3] as Readable | null;
  const block = child.stdio[4] as Writable | null;
  if (!info || !block) throw new Error('The jail was not started with its info and block pipes');
  const deadline = AbortSignal.timeout(SETUP_TIMEOUT_MS);
  const pid = await childPidOf(info, deadline);
  const slirp = spawn(
    tools.slirp4netns,
    [
      '--configure',
      '--mtu=65520',
      '--disable-host-loopback',
      '--enable-sandbox',
      '--enable-seccomp',
      '--ready-fd=3',
      '--exit-fd=4',
      String(pid),
      'tap0',
    ],
    { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] },
  );
  let said = '';
  slirp.stderr?.on('data', (chunk: Buffer) => {
    if (said.length < 2_000) said += chunk.toString();
  });
  const release = (): void => {
    (slirp.stdio[4] as Writable | null)?.destroy();
    if (slirp.exitCode === null) slirp.kill('SIGKILL');
  };
  try {
    await readyOf(slirp, deadline, () => said);
    await refuseRanges(tools, pid);
  } catch (error) {
    release();
    throw error;
  }
  block.write('1');
  block.end();
  return { release };
}

/** Adds the refusing routes in the namespace of `pid`, as root from the host. */
async function refuseRanges(tools: JailNetworkTools, pid: number): Promise<void> {
  const routes = spawn(tools.nsenter, ['-t', String(pid), '-n', tools.ip, '-batch', '-'], {
    stdio: ['pipe', 'ignore', 'pipe'],
    timeout: SETUP_TIMEOUT_MS,
  });
  let said = '';
  routes.stderr.on('data', (chunk: Buffer) => {
    said += chunk.toString();
  });
  routes.stdin.end(refusalRoutes(tools.refused));
  const [code] = (await once(routes, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`the jail's routes could not be set: ${said.trim()}`);
}

/** bubblewrap's `{"child-pid": N}`. */
async function childPidOf(info: Readable, signal: AbortSignal): Promise<number> {
  let text = '';
  info.setEncoding('utf8');
  info.on('data', (chunk: string) => {
    text += chunk;
  });
  await once(info, 'end', { signal });
  const pid = (JSON.parse(text) as { 'child-pid'?: unknown })['child-pid'];
  if (typeof pid !== 'number') throw new Error(`bubblewrap gave no child pid: ${text}`);
  return pid;
}

async function readyOf(
  slirp: ChildProcess,
  signal: AbortSignal,
  said: () => string,
): Promise<void> {
  const ready = slirp.stdio[3] as Readable | null;
  if (!ready) throw new Error('slirp4netns has no ready pipe');
  const exited = once(slirp, 'exit', { signal }).then(() => {
    throw new Error(`slirp4netns exited: ${said().trim().split('\n').pop() ?? ''}`);
  });
  await Promise.race([once(ready, 'data', { signal }), exited]);
  exited.catch(() => undefined);
}
