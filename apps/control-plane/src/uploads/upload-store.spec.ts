import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { uuidv7 } from '#libs/event-store';
import { rawTarball } from '../../../../libs/source-archive/src/testing/tar-fixtures.js';
import { MAX_UPLOAD_BYTES, UploadStore } from './upload-store.js';

const BASE_URL = 'http://127.0.0.1:8080';
const NOW = new Date('2030-01-02T03:04:05.000Z');

/** Yields `count` chunks, the first starting with the gzip magic, without holding them all. */
function chunks(first: Buffer, rest: Buffer, count: number): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (sent === count) {
        this.push(null);
        return;
      }
      this.push(sent === 0 ? first : rest);
      sent += 1;
    },
  });
}

describe('UploadStore', () => {
  let root: string;
  let store: UploadStore;
  const deploymentId = uuidv7();

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'berth-upload-store-'));
    store = new UploadStore(root, randomBytes(32));
  });

  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  describe('signed URLs', () => {
    it('issues a URL for /v2/<object_path> with an expiry and a signature', () => {
      const issued = store.issue(deploymentId, BASE_URL, NOW);
      const url = new URL(issued.upload_url);

      expect(issued.object_path).toMatch(
        new RegExp(`^uploads/${deploymentId}/[0-9a-f-]{36}\\.tar\\.gz$`),
      );
      expect(url.origin).toBe(BASE_URL);
      expect(url.pathname).toBe(`/v2/${issued.object_path}`);
      const expires = url.searchParams.get('expires');
      expect(Number(expires)).toBe(new Date(issued.expires_at).getTime());
      expect(Number(expires)).toBeGreaterThan(NOW.getTime());
      expect(url.searchParams.get('signature')).toMatch(/^[0-9a-f]{64}$/);
    });

    const params = (uploadUrl: string): { expires: string; signature: string } => {
      const url = new URL(uploadUrl);
      return {
        expires: url.searchParams.get('expires') ?? '',
        signature: url.searchParams.get('signature') ?? '',
      };
    };

    it('verifies its own URL until it expires', () => {
      const issued = store.issue(deploymentId, BASE_URL, NOW);
      const { expires, signature } = params(issued.upload_url);

      expect(store.verify(issued.object_path, expires, signature, NOW)).toBe(true);
      expect(store.verify(issued.object_path, expires, signature, new Date(Number(expires)))).toBe(
        true,
      );
      expect(
        store.verify(issued.object_path, expires, signature, new Date(Number(expires) + 1)),
      ).toBe(false);
    });

    it('refuses a tampered signature', () => {
      const issued = store.issue(deploymentId, BASE_URL, NOW);
      const { expires, signature } = params(issued.upload_url);
      const tampered = `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`;

      expect(store.verify(issued.object_path, expires, tampered, NOW)).toBe(false);
      expect(store.verify(issued.object_path, expires, signature.slice(0, -2), NOW)).toBe(false);
      expect(store.verify(issued.object_path, expires, 'not hex', NOW)).toBe(false);
      expect(store.verify(issued.object_path, expires, '', NOW)).toBe(false);
    });

    it('refuses a signature for another object path', () => {
      const issued = store.issue(deploymentId, BASE_URL, NOW);
      const other = store.issue(uuidv7(), BASE_URL, NOW);
      const { expires, signature } = params(issued.upload_url);

      expect(store.verify(other.object_path, expires, signature, NOW)).toBe(false);
    });

    it('refuses a moved expiry and a non-numeric one', () => {
      const issued = store.issue(deploymentId, BASE_URL, NOW);
      const { expires, signature } = params(issued.upload_url);

      expect(store.verify(issued.object_path, String(Number(expires) + 1), signature, NOW)).toBe(
        false,
      );
      expect(store.verify(issued.object_path, 'soon', signature, NOW)).toBe(false);
      expect(store.verify(issued.object_path, '', signature, NOW)).toBe(false);
    });

    it('refuses a URL signed with another key', () => {
      const issued = new UploadStore(root, randomBytes(32)).issue(deploymentId, BASE_URL, NOW);
      const { expires, signature } = params(issued.upload_url);

      expect(store.verify(issued.object_path, expires, signature, NOW)).toBe(false);
    });
  });

  describe('receive', () => {
    const objectPath = (): string => store.issue(deploymentId, BASE_URL, NOW).object_path;

    const expectNothingStored = async (path: string): Promise<void> => {
      expect(await store.exists(path)).toBe(false);
      expect(await readdir(dirname(store.pathOf(path)))).toEqual([]);
    };

    it('stores a gzip body and reports its size and sha256', async () => {
      const path = objectPath();
      const body = gzipSync(randomBytes(100_000));

      const received = await store.receive(
        path,
        Readable.from([body.subarray(0, 1), body.subarray(1)]),
      );

      expect(received).toEqual({
        object_path: path,
        bytes: body.length,
        sha256: createHash('sha256').update(body).digest('hex'),
      });
      expect(await store.exists(path)).toBe(true);
      expect(await readFile(store.pathOf(path))).toEqual(body);
      expect(await readdir(dirname(store.pathOf(path)))).toEqual([path.split('/')[2]]);
    });

    it('takes one tarball per URL: a second upload is a conflict and changes nothing', async () => {
      const path = objectPath();
      const first = gzipSync(randomBytes(1_000));
      await store.receive(path, Readable.from([first]));
      await expect(
        store.receive(path, Readable.from([gzipSync(randomBytes(1_000))])),
      ).rejects.toMatchObject({ code: 'conflict' });
      expect(await readFile(store.pathOf(path))).toEqual(first);
      expect(await store.sha256Of(path)).toBe(createHash('sha256').update(first).digest('hex'));
    });

    it('lets one of two uploads racing to one URL win, whole', async () => {
      const path = objectPath();
      const bodies = [gzipSync(randomBytes(200_000)), gzipSync(randomBytes(200_000))];
      const outcomes = await Promise.allSettled(
        bodies.map((body) => store.receive(path, Readable.from([body]))),
      );
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
      const stored = await readFile(store.pathOf(path));
      expect(bodies.some((body) => body.equals(stored))).toBe(true);
      expect(await readdir(dirname(store.pathOf(path)))).toEqual([path.split('/')[2]]);
    });

    it('refuses a tarball of more than 100 000 entries while it streams, and keeps nothing', async () => {
      const path = objectPath();
      const entries = Array.from({ length: 100_001 }, (_, index) => ({
        path: `e${index}`,
        body: '',
      }));
      await expect(store.receive(path, Readable.from([rawTarball(entries)]))).rejects.toMatchObject(
        {
          code: 'bad_request',
          message: expect.stringContaining('more than 100000 entries') as unknown,
        },
      );
      await expectNothingStored(path);
    });

    it('refuses a body that is not gzip and keeps nothing', async () => {
      const path = objectPath();

      await expect(
        store.receive(path, Readable.from([Buffer.from('plain text, not gzip')])),
      ).rejects.toMatchObject({ code: 'bad_request' });
      await expectNothingStored(path);
    });

    it('checks the gzip magic even when it is split across chunks', async () => {
      const path = objectPath();
      const body = gzipSync('split');
      const split = await store.receive(
        path,
        Readable.from([body.subarray(0, 1), body.subarray(1, 2), body.subarray(2)]),
      );
      expect(split.bytes).toBe(body.length);

      const refused = objectPath();
      await expect(
        store.receive(refused, Readable.from([Buffer.from([0x1f]), Buffer.from('not gzip')])),
      ).rejects.toMatchObject({ code: 'bad_request' });
      expect(await store.exists(refused)).toBe(false);
    });

    it('refuses a body too short to be gzip, even when it starts like one', async () => {
      const path = objectPath();

      await expect(store.receive(path, Readable.from([Buffer.from([0x1f])]))).rejects.toMatchObject(
        {
          code: 'bad_request',
          message: expect.stringMatching(/too short/) as unknown,
        },
      );
      await expectNothingStored(path);
    });

    it('refuses an empty body and keeps nothing', async () => {
      const path = objectPath();

      await expect(store.receive(path, Readable.from([]))).rejects.toMatchObject({
        code: 'bad_request',
      });
      await expectNothingStored(path);
    });

    it('refuses a body over the limit and keeps nothing', async () => {
      const path = objectPath();
      const chunk = Buffer.alloc(1024 * 1024);
      const first = Buffer.concat([Buffer.from([0x1f, 0x8b]), chunk.subarray(2)]);
      const count = MAX_UPLOAD_BYTES / chunk.length + 1;

      await expect(store.receive(path, chunks(first, chunk, count))).rejects.toMatchObject({
        code: 'bad_request',
        message: `The upload is larger than ${MAX_UPLOAD_BYTES} bytes`,
      });
      await expectNothingStored(path);
    }, 60_000);
  });

  describe('pathOf', () => {
    it('maps an upload object path under the root', () => {
      const path = `uploads/${uuidv7()}/${uuidv7()}.tar.gz`;

      expect(store.pathOf(path)).toBe(join(root, path));
    });

    it.each([
      ['a parent directory', `uploads/${uuidv7()}/../${uuidv7()}.tar.gz`],
      ['a leading parent', `../uploads/${uuidv7()}/${uuidv7()}.tar.gz`],
      ['another prefix', `secrets/${uuidv7()}/${uuidv7()}.tar.gz`],
      ['another extension', `uploads/${uuidv7()}/${uuidv7()}.zip`],
      ['an absolute path', `/uploads/${uuidv7()}/${uuidv7()}.tar.gz`],
      ['a short name', `uploads/${uuidv7()}/x.tar.gz`],
      ['a nested path', `uploads/${uuidv7()}/${uuidv7()}/${uuidv7()}.tar.gz`],
    ])('refuses %s', (_what, path) => {
      expect(() => store.pathOf(path)).toThrow(expect.objectContaining({ code: 'bad_request' }));
    });

    it('refuses to receive into a path that is not an upload', async () => {
      await expect(
        store.receive('uploads/../../escape.tar.gz', Readable.from([gzipSync('x')])),
      ).rejects.toMatchObject({ code: 'bad_request' });
      expect(await readdir(root)).toEqual([]);
    });
  });
});
