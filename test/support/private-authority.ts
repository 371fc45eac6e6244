import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * An HTTPS server on 127.0.0.1 whose certificate no public authority signed, and a bundle for
 * NODE_EXTRA_CA_CERTS that trusts it beside what the machine's NODE_EXTRA_CA_CERTS already
 * trusts (a machine behind a re-signing proxy keeps reaching its registry). Its key and
 * certificate too, for a server of the same name started where the host's loopback is not
 * reached (a jail's own).
 */
export type PrivateAuthority = {
  readonly url: string;
  readonly bundle: string;
  readonly keyPem: string;
  readonly certPem: string;
  readonly close: () => Promise<void>;
};

export async function startPrivateHttpsServer(): Promise<PrivateAuthority> {
  const dir = await mkdtemp(join(tmpdir(), 'berth-private-ca-'));
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  await run('openssl', [
    ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'],
    ...['-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=Berth test authority'],
    ...['-addext', 'subjectAltName=IP:127.0.0.1'],
  ]);
  const machine = process.env.NODE_EXTRA_CA_CERTS;
  const trusted = machine ? await readFile(machine, 'utf8').catch(() => '') : '';
  const bundle = join(dir, 'bundle.pem');
  await writeFile(bundle, `${trusted}\n${await readFile(cert, 'utf8')}`, { mode: 0o644 });
  const server: Server = createServer(
    { key: await readFile(key), cert: await readFile(cert) },
    (_request, response) => response.end('trusted'),
  );
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}/`,
    bundle,
    keyPem: await readFile(key, 'utf8'),
    certPem: await readFile(cert, 'utf8'),
    close: async () => {
      server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
