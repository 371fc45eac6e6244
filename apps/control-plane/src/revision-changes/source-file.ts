import { createHash } from 'node:crypto';
import type { SourceFile } from '../deployments/domain/revision-changes.js';

/** How much of a revision's source is read to compare it; beyond, the answer says it stopped. */
export const SOURCE_READ_LIMITS = {
  maxFiles: 5_000,
  /** Bytes read (and hashed) across the source's files. */
  maxTotalBytes: 128 * 1024 * 1024,
  /** A file's text is kept (for its diff) up to this size. */
  maxTextBytes: 256 * 1024,
  /** The files dependencies and graphs are read from, kept up to a larger size. */
  manifestMaxBytes: 32 * 1024 * 1024,
} as const;

const MANIFESTS = new Set(['package.json', 'package-lock.json']);
const BINARY_SNIFF_BYTES = 8_000;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** How much of a file at `path` is kept as text: manifests (and the graph config) more. */
export function textCapOf(path: string, graphConfigPath: string): number {
  return MANIFESTS.has(path) || path === graphConfigPath
    ? SOURCE_READ_LIMITS.manifestMaxBytes
    : SOURCE_READ_LIMITS.maxTextBytes;
}

/** A file's content as the comparison takes it: its hash, and its text when it is text. */
export function sourceFileOf(content: Buffer, textCap: number): SourceFile {
  const bytes = content.length;
  const sha256 = createHash('sha256').update(content).digest('hex');
  if (content.subarray(0, BINARY_SNIFF_BYTES).includes(0)) {
    return { bytes, sha256, unread: 'binary: named only' };
  }
  if (bytes > textCap) return { bytes, sha256, unread: `larger than ${textCap} bytes: named only` };
  try {
    return { bytes, sha256, text: utf8.decode(content) };
  } catch {
    return { bytes, sha256, unread: 'not UTF-8 text: named only' };
  }
}

/** A file too large to keep: its hash only (computed as it streams past). */
export function largeSourceFile(bytes: number, sha256: string, textCap: number): SourceFile {
  return { bytes, sha256, unread: `larger than ${textCap} bytes: named only` };
}

/** A symbolic link, named with its target and never followed. */
export function linkSourceFile(target: string): SourceFile {
  return {
    bytes: 0,
    sha256: createHash('sha256').update(`link:${target}`).digest('hex'),
    unread: `a symbolic link to ${target}: never followed`,
  };
}
