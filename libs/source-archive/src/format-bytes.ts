const MIB = 1024 * 1024;

/** `52428800` → `50.0 MiB (52428800 bytes)`, for limit messages. */
export function formatBytes(bytes: number): string {
  return `${(bytes / MIB).toFixed(1)} MiB (${bytes} bytes)`;
}
