/** A file or symbolic link of a project, as it goes into the tarball. */
export type ProjectEntry =
  | { readonly type: 'File'; readonly path: string; readonly mode: number; readonly size: number }
  | { readonly type: 'SymbolicLink'; readonly path: string; readonly linkpath: string };

/** Modes are normalized so the same tree packs the same whatever the umask: 0755 or 0644. */
export function normalizedMode(mode: number): number {
  return mode & 0o100 ? 0o755 : 0o644;
}
