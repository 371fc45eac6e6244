import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`), or the one `BERTH_CHROMIUM` names. */
export function chromiumPath(): string | undefined {
  const candidates = [process.env.BERTH_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  return candidates.find((path): path is string => path !== undefined && existsSync(path));
}

/** Where end-to-end tests leave their screenshots. */
export const ARTIFACTS_DIR = resolve('test-artifacts');

/** A headless Chromium with nothing that reaches outside this machine. */
export async function launchChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({
    executablePath,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** A full-page screenshot under test-artifacts/<folder>/<name>.png. */
export async function screenshot(page: Page, folder: string, name: string): Promise<string> {
  const dir = resolve(ARTIFACTS_DIR, folder);
  await mkdir(dir, { recursive: true });
  const path = resolve(dir, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** Whether the page fits its viewport's width (nothing to scroll sideways). */
export async function fitsWidth(page: Page): Promise<boolean> {
  return page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth');
}
