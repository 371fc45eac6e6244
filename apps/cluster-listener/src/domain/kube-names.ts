import { createHash } from 'node:crypto';

/** RFC 1123 label: what Kubernetes accepts as the name of most objects and of containers, ports, volumes. */
const DNS_1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const MAX_LABEL = 63;

/** The longest suffix a deployment's objects add to its base name (`-db-credentials`). */
const LONGEST_SUFFIX = 15;

export function isDns1123Label(name: string): boolean {
  return name.length <= MAX_LABEL && DNS_1123_LABEL.test(name);
}

/**
 * The base name of a deployment's objects: its name made a DNS label, then 8 hex digits of a hash
 * of its id, so that two deployments never share objects whatever their names, and every suffix
 * still fits in 63 characters.
 */
export function baseNameOf(deploymentName: string, deploymentId: string): string {
  const hash = createHash('sha256').update(deploymentId).digest('hex').slice(0, 8);
  const room = MAX_LABEL - LONGEST_SUFFIX - hash.length - 1;
  const slug = deploymentName
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .slice(0, room)
    .replace(/^-+|-+$/g, '');
  return slug ? `${slug}-${hash}` : `berth-${hash}`;
}

/** The names of one deployment's objects. */
export function objectNames(base: string) {
  return {
    api: base,
    queue: `${base}-queue`,
    service: base,
    secrets: `${base}-secrets`,
    database: `${base}-db`,
    databaseCredentials: `${base}-db-credentials`,
    networkPolicy: base,
    databasePolicy: `${base}-db`,
    disruptionBudget: base,
    queueAutoscaler: `${base}-queue`,
  } as const;
}

export type ObjectNames = ReturnType<typeof objectNames>;
