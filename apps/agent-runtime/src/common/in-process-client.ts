/** Where the official SDK's `Client`, built without `apiUrl`, finds the server it runs in. */
const FETCH = Symbol.for('langgraph_api:fetch');
const URL_OF_SERVER = Symbol.for('langgraph_api:url');

export type InProcessFetch = (
  input: string | URL | Request,
  init?: RequestInit,
) => Promise<Response>;

interface InProcessGlobals {
  [FETCH]?: InProcessFetch;
  [URL_OF_SERVER]?: string;
}

const globals = globalThis as unknown as InProcessGlobals;

/**
 * Points `new Client()` (no URL) of the application's code at this server, as `langgraph dev`
 * does: its requests are handed to `fetch` in process, never through a socket.
 */
export function bindInProcessClient(fetch: InProcessFetch, serverUrl: string): void {
  globals[FETCH] = fetch;
  globals[URL_OF_SERVER] = serverUrl;
}

/** The in-process fetch, once the server is listening. */
export function inProcessFetch(): InProcessFetch | undefined {
  return globals[FETCH];
}
