/** What was found of this machine at start, for deciding whether tenants can be sealed. */
export type SealingFacts = {
  readonly runsAsRoot: boolean;
  /** Paths of Berth's own code that a runtime dropped to another user could not read. */
  readonly unreadablePlatformPaths: readonly string[];
  /** An ancestor of the data directory that other users cannot traverse. */
  readonly untraversableDataDirAncestor: string | undefined;
  readonly databaseTrustsEveryone: boolean;
  readonly databaseRoleCanCreateRoles: boolean;
  /** Why builds and runtimes cannot be sandboxed here (as root); undefined when they can. */
  readonly whyNoJail: string | undefined;
  /** Why jails cannot have networks of their own here; undefined when they can (or no jails). */
  readonly whyNoJailNetwork: string | undefined;
};

/** Why tenants' builds and runtimes cannot be sealed from each other here; empty when they are. */
export function sealingGaps(facts: SealingFacts): string[] {
  const gaps: string[] = [];
  if (!facts.runsAsRoot) {
    gaps.push(
      'Berth does not run as root, so builds and runtimes run as its own user and can read its data directory',
    );
  } else if (facts.unreadablePlatformPaths.length > 0) {
    gaps.push(
      `runtimes could not read Berth's own code as another user (${facts.unreadablePlatformPaths.join(', ')}); ` +
        'make it readable by others (chmod o+rX) so that they can drop privileges',
    );
  } else if (facts.untraversableDataDirAncestor) {
    gaps.push(
      `builds could not reach the data directory as another user: ${facts.untraversableDataDirAncestor} ` +
        'is not traversable by others (chmod o+x), or choose another BERTH_DATA_DIR',
    );
  }
  if (dropsPrivileges(facts) && facts.whyNoJail) {
    gaps.push(
      `builds and runtimes cannot be sandboxed (${facts.whyNoJail}), so each sees the whole ` +
        "file system its user may read, the host's processes and a shared /tmp",
    );
  }
  if (dropsPrivileges(facts) && !facts.whyNoJail && facts.whyNoJailNetwork) {
    gaps.push(
      `the network is not sealed: builds and runtimes share the host's (${facts.whyNoJailNetwork}), ` +
        "so a tenant's code reaches every loopback port of the host (the control plane, other " +
        "deployments' runtimes, PostgreSQL) and its private networks",
    );
  }
  if (facts.databaseTrustsEveryone) {
    gaps.push(
      'the PostgreSQL server accepts connections without a valid password (trust in pg_hba.conf), ' +
        'so any local process can log in as any role; use scram-sha-256',
    );
  }
  if (!facts.databaseRoleCanCreateRoles) {
    gaps.push(
      "the platform's database role cannot create roles, so runtimes connect with the platform's own role",
    );
  }
  return gaps;
}

/** Whether builds and runtimes can run as users of their own. */
export const dropsPrivileges = (facts: SealingFacts): boolean =>
  facts.runsAsRoot &&
  facts.unreadablePlatformPaths.length === 0 &&
  facts.untraversableDataDirAncestor === undefined;
