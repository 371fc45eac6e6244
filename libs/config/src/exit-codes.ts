/**
 * A Berth process exits with this when it cannot start until someone changes something (a port
 * in use, dependencies not installed, a configuration it refuses): sysexits' EX_CONFIG. Whoever
 * supervises it does not start it again.
 */
export const CANNOT_START_EXIT_CODE = 78;
