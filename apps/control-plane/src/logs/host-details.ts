const INTERNAL_ADDRESS = /\bhttps?:\/\/(?:127\.\d+\.\d+\.\d+|localhost|\[::1\]|0\.0\.0\.0):\d+/gi;
/** The Unix sockets between the control plane and the jails (see jail-sockets.ts). */
const JAIL_SOCKET = /\/run\/berth-[\w-]+\/[^\s'"`),]*/g;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Removes what a tenant must not learn about the host from text shown to it: paths inside its
 * own source become relative to the project, other paths of the platform (its data directory,
 * its installation) and internal addresses are replaced by a placeholder.
 */
export class HostDetails {
  private readonly paths: [RegExp, string][];

  /**
   * `sourceDir`: the project's directory; `platformPaths`: directories the tenant must not see;
   * `publicUrls`: addresses that are the tenant's own (its deployment's URL), shown as they are.
   */
  constructor(
    sourceDir: string,
    platformPaths: readonly string[],
    private readonly publicUrls: readonly string[] = [],
  ) {
    const platform = platformPaths
      .filter((path) => path.length > 1)
      .sort((a, b) => b.length - a.length)
      .map(escapeRegExp);
    this.paths = [
      [new RegExp(`${escapeRegExp(sourceDir)}/`, 'g'), ''],
      [new RegExp(`${escapeRegExp(sourceDir)}(?![\\w.-])`, 'g'), '.'],
    ];
    if (platform.length > 0) {
      this.paths.push([new RegExp(`(?:${platform.join('|')})[^\\s'"\`),:]*`, 'g'), '[platform]']);
    }
  }

  scrub(text: string): string {
    let scrubbed = text;
    for (const [pattern, replacement] of this.paths)
      scrubbed = scrubbed.replace(pattern, replacement);
    scrubbed = scrubbed.replace(JAIL_SOCKET, '[internal address]');
    return scrubbed.replace(INTERNAL_ADDRESS, (address) =>
      this.publicUrls.some((url) => url.toLowerCase().startsWith(address.toLowerCase()))
        ? address
        : '[internal address]',
    );
  }
}
