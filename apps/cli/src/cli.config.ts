import { resolve } from 'node:path';
import { envInteger, envText, type Environment } from '#libs/config';
import { defaultDataDir, platformRecordsDir } from './platform/berth-locations.js';

/** What the CLI takes from the environment, read once. */
export interface CliEnvironment {
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  /** Whether BERTH_DATA_DIR was set (else dataDir is Berth's own, see `defaultDataDir`). */
  readonly dataDirConfigured: boolean;
  /** Where running platforms record themselves (see `platformRecordsDir`). */
  readonly platformRecordsDir: string;
  readonly apiKey: string | undefined;
  readonly eventStoreUrl: string | undefined;
  readonly host: string | undefined;
  readonly controlPlanePort: string | undefined;
  readonly runtimePort: string | undefined;
  /** The control plane `berth deploy` talks to (BERTH_HOST_URL). */
  readonly hostUrl: string | undefined;
  /**
   * How long `berth deploy logs --follow` waits through silence, heartbeats included, before it
   * takes the platform for gone (BERTH_FOLLOW_SILENCE_SECONDS, 30).
   */
  readonly followSilenceSeconds?: number;
  /** Whether stdin and stdout are terminals: live status lines, questions. */
  readonly stdinIsTty: boolean;
  readonly stdoutIsTty: boolean;
}

export function loadCliEnvironment(
  env: Environment = process.env,
  terminal: { readonly stdin: boolean; readonly stdout: boolean } = {
    stdin: process.stdin.isTTY,
    stdout: process.stdout.isTTY,
  },
): CliEnvironment {
  return {
    databaseUrl: envText(env.DATABASE_URL),
    dataDir: resolve(envText(env.BERTH_DATA_DIR) ?? defaultDataDir(env)),
    dataDirConfigured: envText(env.BERTH_DATA_DIR) !== undefined,
    platformRecordsDir: platformRecordsDir(env),
    apiKey: envText(env.BERTH_API_KEY),
    eventStoreUrl: envText(env.EVENTSTORE_URL),
    host: envText(env.BERTH_HOST),
    controlPlanePort: envText(env.BERTH_CONTROL_PLANE_PORT),
    runtimePort: envText(env.BERTH_RUNTIME_PORT),
    hostUrl: envText(env.BERTH_HOST_URL),
    // The control plane sends a heartbeat every 10 s: a shorter silence is no sign of anything.
    followSilenceSeconds: envInteger(
      'BERTH_FOLLOW_SILENCE_SECONDS',
      env.BERTH_FOLLOW_SILENCE_SECONDS,
      30,
      { min: 15, max: 3600 },
    ),
    stdinIsTty: terminal.stdin,
    stdoutIsTty: terminal.stdout,
  };
}
