#!/usr/bin/env node
// The berth command: runs the built CLI (npm install builds it; `npm run build` after changes).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const main = fileURLToPath(new URL('../dist/apps/cli/src/main.js', import.meta.url));
if (!existsSync(main)) {
  console.error('berth: not built yet. Run "npm run build" in the Berth repository first.');
  process.exit(1);
}
await import(main);
