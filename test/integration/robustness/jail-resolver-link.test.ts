import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { sealableOrSkipped } from '../../support/tenant-deploy.js';

const describeWhereSealable = await sealableOrSkipped(describe, 'Jail resolver link tests');

/** Where systemd-resolved links /etc/resolv.conf: a directory a jail does not have. */
const STUB = '/run/berth-test-resolved/stub-resolv.conf';
const JAIL_RESOLVER_TEXT = 'nameserver 10.0.2.3\n# the jail resolver of this test\n';

/**
 * Runs, in a mount namespace of its own whose /etc is a copy with resolv.conf linked to a file
 * that does not exist (a host with systemd-resolved not running, or one whose stub is under /run),
 * a jail with a network of its own that prints its /etc/resolv.conf.
 */
const JAIL_SCRIPT = `
import { spawn } from 'node:child_process';
const [dist, resolvConf] = process.argv.slice(2);
const isolation = dist + '/apps/control-plane/src/isolation/';
const { jailCommand } = await import(isolation + 'jail.js');
const { findJailTools } = await import(isolation + 'jail-tools.js');
const { resolverMountPoint } = await import(isolation + 'jail-network.js');
const tools = await findJailTools();
if (typeof tools === 'string') throw new Error(tools);
const spec = {
  identity: { uid: 65534, gid: 65534 },
  writable: [],
  readable: [],
  tmpBytes: 1 << 20,
  cwd: '/tmp',
  cgroups: [],
  network: { resolvConf, mountPoint: await resolverMountPoint() },
};
const [command, ...args] = jailCommand(tools, spec, ['/bin/cat', '/etc/resolv.conf']);
const child = spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit', 'pipe', 'pipe'] });
// bubblewrap says its child's pid on the info pipe, then waits on the block pipe: no network is
// set up here, so it is let go at once.
for (const pipe of [child.stdio[3], child.stdio[4]]) pipe.on('error', () => undefined);
child.stdio[3].once('data', () => child.stdio[4].end('go'));
child.on('exit', (code) => process.exit(code ?? 1));
`;

describeWhereSealable('a jail on a host whose /etc/resolv.conf is a link', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'berth-resolver-link-'));
    await chmod(dir, 0o755);
    await writeFile(join(dir, 'jail.mjs'), JAIL_SCRIPT);
    await writeFile(join(dir, 'resolv.conf'), JAIL_RESOLVER_TEXT, { mode: 0o644 });
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads its own resolver through the link, where bubblewrap could not bind over it', async () => {
    const etc = join(dir, 'etc');
    const setUp = [
      'set -e',
      `mkdir -p ${etc}`,
      `mount -t tmpfs tmpfs ${etc}`,
      `cp -a /etc/. ${etc}/`,
      `rm -f ${etc}/resolv.conf`,
      `ln -s ${STUB} ${etc}/resolv.conf`,
      `mount --bind ${etc} /etc`,
      `exec "${process.execPath}" ${join(dir, 'jail.mjs')} ${resolve('dist')} ${join(dir, 'resolv.conf')}`,
    ].join('\n');
    const child = spawn('unshare', ['--mount', '--propagation', 'private', 'sh', '-c', setUp], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const code = await new Promise<number | null>((done) => child.on('exit', done));
    expect({ code, err }).toEqual({ code: 0, err: '' });
    expect(out).toBe(JAIL_RESOLVER_TEXT);
  }, 60_000);
});
