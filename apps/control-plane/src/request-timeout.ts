/**
 * The longest a client may take to send a whole request to the control plane's port or to a
 * deployment's: long enough for a 200 MB tarball at 1 MB/s; a stalled one is cut sooner by the
 * idle timeout.
 */
export const CONTROL_PLANE_REQUEST_TIMEOUT_MS = 300_000;
