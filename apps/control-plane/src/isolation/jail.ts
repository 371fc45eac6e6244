import type { OsIdentity } from './os-identities.js';

/** The programs a jail is made with and the host's system directories, found once at start. */
export type JailTools = {
  readonly bwrap: string;
  readonly setpriv: string;
  /** Bound read-only at the same path: /usr, /etc, and Node's own prefix when elsewhere. */
  readonly systemDirs: readonly string[];
  /** Top-level links of a merged /usr (/bin -> usr/bin), made again inside as the same links. */
  readonly systemLinks: readonly { readonly path: string; readonly target: string }[];
  /** The file of NODE_EXTRA_CA_CERTS when it is not in those directories: bound read-only too. */
  readonly extraCertificates: string | undefined;
};

/** What one jailed process (a build command or a runtime) sees and runs as. */
export type JailSpec = {
  readonly identity: OsIdentity;
  /** Directories of the deployment's, bound read-write at the same path. */
  readonly writable: readonly string[];
  /** Bound read-only at the same path: the platform's code, the tenant's installed dependencies. */
  readonly readable: readonly string[];
  /** Size of the private /tmp (a tmpfs of the jail's own, charged to its memory limit). */
  readonly tmpBytes: number;
  readonly cwd: string;
  /** Control groups (one directory per v1 controller) the jail joins before it starts. */
  readonly cgroups: readonly string[];
  /**
   * A network namespace of its own, its resolver's resolv.conf bound over the host's: bubblewrap
   * then writes its child's pid on fd 3 and waits on fd 4 until the network is up (see
   * jail-network.ts). Undefined: the host's network is shared.
   */
  readonly network: JailResolver | undefined;
};

/** The resolver file a jail's /etc/resolv.conf reads, and where it is bound to be read there. */
export type JailResolver = {
  readonly resolvConf: string;
  /** /etc/resolv.conf, or the file it links to on the host (see resolverMountPoint). */
  readonly mountPoint: string;
};

/** The pipes after stdio a jail with a network of its own is spawned with: info, then block. */
export const JAIL_NETWORK_FDS = 2;

/** The file mode creation mask inside every jail: what the tenant writes is its own alone. */
export const JAIL_UMASK = '077';

const JOIN_CGROUPS =
  'while [ "$1" != -- ]; do echo $$ > "$1/cgroup.procs" || exit 125; shift; done; shift; exec "$@"';

/**
 * The command line that runs `command` in a jail: bubblewrap gives it a mount namespace showing
 * only the host's system directories (read-only), the paths named in the spec and a private
 * /tmp, a PID namespace of its own (every process it starts ends with it, setsid or not), its own
 * IPC and host name; setpriv then drops it to the deployment's user with no groups but the
 * tenant's, no capabilities and no way to gain any (no_new_privs). With `spec.network`, it also
 * gets a network namespace of its own, whose only way out is slirp4netns (see jail-network.ts).
 */
export function jailCommand(
  tools: JailTools,
  spec: JailSpec,
  command: readonly string[],
): string[] {
  const mounts: string[] = [];
  // bubblewrap would make the directories on the way to a bind 0700, closed to the user.
  const made = new Set(['/', '/tmp']);
  const makeAncestors = (path: string): void => {
    for (const dir of ancestorsOf(path)) {
      if (made.has(dir)) continue;
      made.add(dir);
      mounts.push('--perms', '0755', '--dir', dir);
    }
  };
  const bind = (flag: string, path: string): void => {
    makeAncestors(path);
    mounts.push(flag, path, path);
    made.add(path);
  };
  // The private /tmp first: a system directory under /tmp (a Node in a checkout there) stays seen.
  mounts.push('--perms', '1777', '--size', String(spec.tmpBytes), '--tmpfs', '/tmp');
  for (const dir of tools.systemDirs) bind('--ro-bind', dir);
  for (const link of tools.systemLinks) mounts.push('--symlink', link.target, link.path);
  if (spec.network) {
    // Over the host's resolver, where the jail's /etc/resolv.conf leads (a link into /run, which
    // the jail has not, is given a directory of its own): bubblewrap cannot bind over a dangling link.
    const { resolvConf, mountPoint } = spec.network;
    makeAncestors(mountPoint);
    mounts.push('--ro-bind', resolvConf, mountPoint);
  }
  mounts.push('--proc', '/proc', '--dev', '/dev');
  const readable = tools.extraCertificates
    ? [...spec.readable, tools.extraCertificates]
    : spec.readable;
  const binds = [
    ...readable.map((path) => ({ path, flag: '--ro-bind' })),
    ...spec.writable.map((path) => ({ path, flag: '--bind' })),
  ].sort((a, b) => depth(a.path) - depth(b.path) || a.path.localeCompare(b.path));
  for (const { flag, path } of binds) bind(flag, path);
  const { uid, gid } = spec.identity;
  const sandboxed = [
    tools.bwrap,
    '--die-with-parent',
    '--new-session',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    ...(spec.network ? ['--unshare-net', '--info-fd', '3', '--block-fd', '4'] : []),
    '--hostname',
    'berth',
    ...mounts,
    '--chdir',
    spec.cwd,
    '--setenv',
    'TMPDIR',
    '/tmp',
    '--',
    tools.setpriv,
    `--reuid=${uid}`,
    `--regid=${gid}`,
    '--clear-groups',
    '--inh-caps=-all',
    '--bounding-set=-all',
    '--no-new-privs',
    '--',
    '/bin/sh',
    '-c',
    `umask ${JAIL_UMASK} && exec "$@" 3>&- 4>&-`,
    'berth-jail',
    ...command,
  ];
  if (spec.cgroups.length === 0) return sandboxed;
  return ['/bin/sh', '-c', JOIN_CGROUPS, 'berth-jail', ...spec.cgroups, '--', ...sandboxed];
}

const depth = (path: string): number => path.split('/').length;

/** `/a/b/c` -> `/a`, `/a/b`. */
function ancestorsOf(path: string): string[] {
  const parts = path.split('/').filter(Boolean);
  return parts.slice(0, -1).map((_, index) => `/${parts.slice(0, index + 1).join('/')}`);
}
