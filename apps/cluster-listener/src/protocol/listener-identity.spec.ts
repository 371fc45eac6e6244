import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ConfigError } from '#libs/config';
import { fileIdentity, loadOrCreateKeys } from './listener-identity.js';

describe('the listener key pair kept in a file', () => {
  const dirs: string[] = [];
  const aFile = async (): Promise<string> => {
    const dir = await mkdtemp(join(tmpdir(), 'berth-identity-'));
    dirs.push(dir);
    return join(dir, 'keys', 'identity.json');
  };
  afterAll(async () => {
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it('is made once, readable by its owner only, and the same pair after that', async () => {
    const store = fileIdentity(await aFile());
    const made = await loadOrCreateKeys(store);
    expect(made.created).toBe(true);
    expect((await stat(store.where)).mode & 0o777).toBe(0o600);
    const again = await loadOrCreateKeys(store);
    expect(again).toEqual({ keys: made.keys, created: false });
  });

  it.each([
    ['not JSON', 'not json'],
    ['no private key', JSON.stringify({ public_key: 'x' })],
    ['a public key that is not one', JSON.stringify({ public_key: 'x', private_key: 'y' })],
  ])('refuses a file holding %s rather than making the listener another one', async (_, text) => {
    const file = await aFile();
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, text);
    const refused = loadOrCreateKeys(fileIdentity(file));
    await expect(refused).rejects.toBeInstanceOf(ConfigError);
    await expect(refused).rejects.toThrow('holds no listener key pair');
  });
});
