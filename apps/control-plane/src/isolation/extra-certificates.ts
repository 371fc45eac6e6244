import { stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';

/**
 * The variable naming the certificate authorities Node.js trusts beyond its own (a proxy that
 * re-signs TLS, a private registry's). A tenant's build and runtime inherit it, and its jail
 * shows the file: npm, yarn and pnpm run on Node and honour it whichever Node that is, whereas
 * npm's machine-wide npmrc (where a `cafile` may be set) is looked for under the prefix of the
 * Node running it, and is not found when that Node is not the system's.
 */
export const EXTRA_CERTIFICATES = 'NODE_EXTRA_CA_CERTS';

/** The file NODE_EXTRA_CA_CERTS names, when it names one that exists. */
export async function extraCertificatesFile(): Promise<string | undefined> {
  const path = process.env[EXTRA_CERTIFICATES];
  if (!path || !isAbsolute(path)) return undefined;
  const found = await stat(path).catch(() => undefined);
  return found?.isFile() ? path : undefined;
}
