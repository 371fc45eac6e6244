import type { LeftOutEntry } from '#libs/source-archive';

/** One sentence per reason: what the upload left out whatever the ignore files say, and why. */
export function describeLeftOut(leftOut: readonly LeftOutEntry[]): string[] {
  const byReason = new Map<string, string[]>();
  for (const { path, reason } of leftOut) {
    byReason.set(reason, [...(byReason.get(reason) ?? []), path]);
  }
  return [...byReason].map(([reason, paths]) => `Left out ${paths.join(', ')} (${reason})`);
}
