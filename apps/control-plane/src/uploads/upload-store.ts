import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { link, mkdir, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { uuidv7 } from '#libs/event-store';
import { badRequest, conflict } from '#libs/domain';
import { ArchiveEntryCounter, DEFAULT_MAX_ENTRIES } from '#libs/source-archive';

const URL_LIFETIME_MS = 60 * 60 * 1000;
export const MAX_UPLOAD_BYTES = 200 * 1024 * 1024;
const GZIP_MAGIC = [0x1f, 0x8b];
/** A gzip member's header and trailer alone take 18 bytes. */
const MIN_GZIP_BYTES = 18;

export async function sha256OfFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path), hash);
  return hash.digest('hex');
}

const usedAlready = () =>
  conflict(
    'This upload URL has been used: each takes one tarball. Ask POST /v2/deployments/{id}/upload-url for a new one',
  );

export type IssuedUpload = { upload_url: string; object_path: string; expires_at: string };
export type ReceivedUpload = { object_path: string; bytes: number; sha256: string };

/**
 * Source tarballs, kept under the data directory. Uploads go to signed, expiring URLs: the
 * signature names the object, so a URL cannot be reused for another deployment or object.
 */
export class UploadStore {
  constructor(
    private readonly root: string,
    private readonly signingKey: Buffer,
  ) {}

  issue(deploymentId: string, baseUrl: string, now: Date): IssuedUpload {
    const objectPath = `uploads/${deploymentId}/${uuidv7()}.tar.gz`;
    const expires = now.getTime() + URL_LIFETIME_MS;
    const query = `expires=${expires}&signature=${this.sign(objectPath, expires)}`;
    return {
      upload_url: `${baseUrl}/v2/${objectPath}?${query}`,
      object_path: objectPath,
      expires_at: new Date(expires).toISOString(),
    };
  }

  /** Whether a PUT to this object carries a valid, unexpired signature. */
  verify(objectPath: string, expires: string, signature: string, now: Date): boolean {
    const expiresAt = Number(expires);
    if (!Number.isSafeInteger(expiresAt) || expiresAt < now.getTime()) return false;
    const expected = Buffer.from(this.sign(objectPath, expiresAt), 'hex');
    const given = Buffer.from(signature, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /**
   * Streams the body to disk; refuses what is not gzip or is over the size limit. An upload URL
   * takes one tarball: a revision built from it must build the same code every time.
   */
  async receive(objectPath: string, body: Readable): Promise<ReceivedUpload> {
    const target = this.pathOf(objectPath);
    if (await this.exists(objectPath)) throw usedAlready();
    const partial = `${target}.${uuidv7()}.partial`;
    await mkdir(dirname(target), { recursive: true });
    const hash = createHash('sha256');
    const counter = new ArchiveEntryCounter(DEFAULT_MAX_ENTRIES);
    const tooMany = () =>
      badRequest(`The tarball has more than ${DEFAULT_MAX_ENTRIES} entries: it would not be built`);
    let bytes = 0;
    const check = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        // The magic may arrive split across chunks: check each of its bytes where it arrives.
        for (let at = bytes; at < GZIP_MAGIC.length && at - bytes < chunk.length; at += 1) {
          if (chunk[at - bytes] !== GZIP_MAGIC[at]) {
            done(badRequest('The upload is not a gzip tarball'));
            return;
          }
        }
        bytes += chunk.length;
        if (bytes > MAX_UPLOAD_BYTES) {
          done(badRequest(`The upload is larger than ${MAX_UPLOAD_BYTES} bytes`));
          return;
        }
        hash.update(chunk);
        counter.feed(chunk);
        if (counter.tooMany) {
          done(tooMany());
          return;
        }
        done(null, chunk);
      },
    });
    try {
      await pipeline(body, check, createWriteStream(partial));
      if (bytes === 0) throw badRequest('The upload is empty');
      if (bytes < MIN_GZIP_BYTES) throw badRequest('The upload is too short to be a gzip tarball');
      await counter.finish();
      if (counter.tooMany) throw tooMany();
      // A link, unlike a rename, never replaces: of two uploads racing to one URL, one wins.
      await link(partial, target).catch((error: unknown) => {
        throw (error as { code?: string }).code === 'EEXIST' ? usedAlready() : error;
      });
    } finally {
      await counter.finish();
      await rm(partial, { force: true });
    }
    return { object_path: objectPath, bytes, sha256: hash.digest('hex') };
  }

  /** The SHA-256 of a stored tarball, as its revision records and its builds check it. */
  sha256Of(objectPath: string): Promise<string> {
    return sha256OfFile(this.pathOf(objectPath));
  }

  async exists(objectPath: string): Promise<boolean> {
    return stat(this.pathOf(objectPath)).then(
      (info) => info.isFile(),
      () => false,
    );
  }

  pathOf(objectPath: string): string {
    if (!/^uploads\/[0-9a-f-]{36}\/[0-9a-f-]{36}\.tar\.gz$/.test(objectPath)) {
      throw badRequest(`${objectPath} is not an upload object path`);
    }
    return join(this.root, objectPath);
  }

  async removeDeployment(deploymentId: string): Promise<void> {
    await rm(join(this.root, 'uploads', deploymentId), { recursive: true, force: true });
  }

  private sign(objectPath: string, expires: number): string {
    return createHmac('sha256', this.signingKey)
      .update(`PUT\n${objectPath}\n${expires}`)
      .digest('hex');
  }
}
