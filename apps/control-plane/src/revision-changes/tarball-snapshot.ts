import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { createGunzip } from 'node:zlib';
import { Parser, type ReadEntry } from 'tar';
import type { SourceFile, SourceSnapshot } from '../deployments/domain/revision-changes.js';
import {
  largeSourceFile,
  linkSourceFile,
  SOURCE_READ_LIMITS,
  sourceFileOf,
  textCapOf,
} from './source-file.js';

const REGULAR_FILES = new Set(['File', 'OldFile', 'ContiguousFile']);

/** An entry's path inside the source, or undefined for one that could leave it. */
function sourcePathOf(entryPath: string): string | undefined {
  const names = entryPath.split('/').filter((name) => name !== '' && name !== '.');
  if (names.length === 0 || names.includes('..') || entryPath.startsWith('/')) return undefined;
  return names.join('/');
}

/**
 * The files of an uploaded tarball, read from the tarball itself as it streams (never extracted:
 * a link is an entry named with its target, nothing on disk is opened but the tarball), within
 * SOURCE_READ_LIMITS. The tarball must be the one the revision recorded (`expectedSha256`).
 */
export async function tarballSnapshot(
  tarball: string,
  expectedSha256: string | null,
  graphConfigPath: string,
): Promise<SourceSnapshot> {
  const files = new Map<string, SourceFile>();
  const tarballHash = createHash('sha256');
  let totalBytes = 0;
  let capped: string | undefined;
  const parser = new Parser({
    // A damaged archive is an error, never a source with fewer files.
    strict: true,
    onReadEntry: (entry: ReadEntry) => {
      const path = sourcePathOf(entry.path);
      if (capped !== undefined || path === undefined || entry.type === 'Directory') {
        entry.resume();
        return;
      }
      if (files.size >= SOURCE_READ_LIMITS.maxFiles) {
        capped = `the source has more than ${SOURCE_READ_LIMITS.maxFiles} files: the rest are not compared`;
        entry.resume();
        return;
      }
      if (entry.type === 'SymbolicLink') {
        files.set(path, linkSourceFile(entry.linkpath ?? ''));
        entry.resume();
        return;
      }
      if (!REGULAR_FILES.has(entry.type)) {
        files.set(path, {
          bytes: 0,
          sha256: createHash('sha256')
            .update(`${entry.type}:${entry.linkpath ?? ''}`)
            .digest('hex'),
          unread: `a ${entry.type} entry, not a regular file: named only`,
        });
        entry.resume();
        return;
      }
      const { size } = entry;
      if (totalBytes + size > SOURCE_READ_LIMITS.maxTotalBytes) {
        capped = `the source holds more than ${SOURCE_READ_LIMITS.maxTotalBytes} bytes: the rest are not compared`;
        entry.resume();
        return;
      }
      totalBytes += size;
      const textCap = textCapOf(path, graphConfigPath);
      const keep = size <= textCap;
      const chunks: Buffer[] = [];
      const hash = createHash('sha256');
      entry.on('data', (chunk: Buffer) => {
        if (keep) chunks.push(chunk);
        else hash.update(chunk);
      });
      entry.on('end', () => {
        files.set(
          path,
          keep
            ? sourceFileOf(Buffer.concat(chunks), textCap)
            : largeSourceFile(size, hash.digest('hex'), textCap),
        );
      });
    },
  });
  const done = new Promise<void>((resolve, reject) => {
    parser.on('end', resolve);
    parser.on('close', resolve);
    parser.on('error', reject);
  });
  // Awaited below; a failure met first by write() must not also surface as unhandled.
  done.catch(() => undefined);
  try {
    const gunzip = createGunzip();
    const source = createReadStream(tarball);
    source.on('data', (chunk) => tarballHash.update(chunk));
    for await (const chunk of source.pipe(gunzip, { end: true }) as AsyncIterable<Buffer>) {
      if (!parser.write(chunk)) await new Promise((resolve) => parser.once('drain', resolve));
    }
    parser.end();
    await done;
  } catch (error) {
    return { kept: false, reason: `the tarball could not be read: ${messageOf(error)}` };
  }
  const found = tarballHash.digest('hex');
  if (expectedSha256 && found !== expectedSha256) {
    return {
      kept: false,
      reason: `the stored tarball is not the one the revision recorded (SHA-256 ${found})`,
    };
  }
  return capped === undefined ? { kept: true, files } : { kept: true, files, capped };
}

const messageOf = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);
