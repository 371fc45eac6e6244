import { fileURLToPath } from 'node:url';

/** Where Berth itself is installed (the directory that holds dist/ or apps/). */
export const PLATFORM_ROOT = fileURLToPath(new URL('../../../', import.meta.url)).replace(
  /\/(dist\/?)?$/,
  '',
);

/** The agent runtime's built entry point, beside the control plane's in dist/. */
export const RUNTIME_SCRIPT = fileURLToPath(
  new URL('../../agent-runtime/src/main.js', import.meta.url),
);
