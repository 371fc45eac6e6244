const BUNDLE_FILE = /^\/ui\/[^/?]+\/[^/?]+(\?|$)/;

/**
 * Whether a request reads a file of a UI bundle: the browser loads those through `<script>` and
 * `<link>` tags, which send no API key or credentials, so they are served to anyone. Asking which
 * files to load (`POST /ui/{agent}`) still needs them.
 */
export function readsUiBundleFile(method: string, url: string): boolean {
  return (method === 'GET' || method === 'HEAD') && BUNDLE_FILE.test(url);
}
