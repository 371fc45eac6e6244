import { chmod, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isLiveNodeProcess } from '#libs/database';

/** What a running `berth up` leaves where the CLI looks, for `berth dev` and `berth deploy`. */
export interface PlatformRecord {
  readonly pid: number;
  readonly startedAt: string;
  /** Its data directory: the embedded PostgreSQL's, when it runs one. */
  readonly dataDir: string;
  readonly controlPlaneUrl: string;
  readonly runtimeUrl: string;
  readonly apiKey: string;
  /** The PostgreSQL server it was given (DATABASE_URL); absent on its embedded one. */
  readonly databaseUrl?: string;
}

const RECORD_FILE = /^platform-(\d+)\.json$/;
/** Names of this machine a local control plane answers on (0.0.0.0 binds them all). */
const LOOPBACK_NAMES = new Set(['localhost', '[::1]', '0.0.0.0']);

/**
 * Records this process as a running platform (a file readable by its user only, in a directory
 * of its own) and returns how to take the record back.
 */
export async function recordPlatform(
  dir: string,
  record: PlatformRecord,
): Promise<() => Promise<void>> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const file = join(dir, `platform-${record.pid}.json`);
  await writeFile(file, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  return () => rm(file, { force: true });
}

/**
 * The platforms recorded as running whose process still runs, the newest first. Records left by
 * a platform that was killed are removed on the way.
 */
export async function runningPlatforms(
  dir: string,
  isAlive: (pid: number) => Promise<boolean> = isLiveNodeProcess,
): Promise<PlatformRecord[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const records: PlatformRecord[] = [];
  for (const name of names) {
    const pid = Number(RECORD_FILE.exec(name)?.[1]);
    if (!Number.isInteger(pid) || pid <= 0) continue;
    const file = join(dir, name);
    const record = parseRecord(await readFile(file, 'utf8').catch(() => ''));
    if (!record || record.pid !== pid || !(await isAlive(pid))) {
      await rm(file, { force: true });
      continue;
    }
    records.push(record);
  }
  return records.sort((a, b) =>
    a.startedAt < b.startedAt ? 1 : a.startedAt > b.startedAt ? -1 : 0,
  );
}

/** The running platform whose control plane is at `url`, comparing origins. */
export function platformAt(
  records: readonly PlatformRecord[],
  url: string,
): PlatformRecord | undefined {
  const origin = comparableOrigin(url);
  return records.find((record) => comparableOrigin(record.controlPlaneUrl) === origin);
}

function comparableOrigin(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    const host = LOOPBACK_NAMES.has(parsed.hostname) ? '127.0.0.1' : parsed.hostname;
    const port = parsed.port || (parsed.protocol === 'https:' ? '443' : '80');
    return `${parsed.protocol}//${host}:${port}`;
  } catch {
    return undefined;
  }
}

function parseRecord(text: string): PlatformRecord | undefined {
  try {
    const value = JSON.parse(text) as Partial<PlatformRecord>;
    const strings = [
      value.startedAt,
      value.dataDir,
      value.controlPlaneUrl,
      value.runtimeUrl,
      value.apiKey,
    ];
    if (typeof value.pid !== 'number' || strings.some((field) => typeof field !== 'string'))
      return undefined;
    if (value.databaseUrl !== undefined && typeof value.databaseUrl !== 'string') return undefined;
    return value as PlatformRecord;
  } catch {
    return undefined;
  }
}
