import { useState } from 'react';
import { RuntimePages } from '../runtime/runtime-pages';

const TARGET_ITEM = 'berth.console.direct-runtime';

type Direct = { url: string; apiKey: string };

function stored(): Direct | null {
  const text = sessionStorage.getItem(TARGET_ITEM);
  return text ? (JSON.parse(text) as Direct) : null;
}

/** Any runtime by its URL and key (kept in this tab's session storage, like the sign-in key). */
export function DirectRuntimePage() {
  const [target, setTarget] = useState<Direct | null>(stored);
  const [url, setUrl] = useState('');
  const [apiKey, setApiKey] = useState('');
  if (target) {
    return (
      <>
        <p className="hint">
          Runtime <code>{target.url}</code>{' '}
          <button
            type="button"
            className="link"
            onClick={() => {
              sessionStorage.removeItem(TARGET_ITEM);
              setTarget(null);
            }}
          >
            change
          </button>
        </p>
        <RuntimePages target={{ kind: 'direct', ...target }} title="Runtime" />
      </>
    );
  }
  return (
    <main>
      <h1>Open a runtime</h1>
      <form
        className="stacked"
        onSubmit={(event) => {
          event.preventDefault();
          const chosen = { url, apiKey };
          sessionStorage.setItem(TARGET_ITEM, JSON.stringify(chosen));
          setTarget(chosen);
        }}
      >
        <label htmlFor="runtime-url">Runtime URL</label>
        <input
          id="runtime-url"
          type="url"
          required
          value={url}
          onChange={(event) => setUrl(event.target.value)}
        />
        <label htmlFor="runtime-key">Its API key</label>
        <input
          id="runtime-key"
          type="password"
          value={apiKey}
          onChange={(event) => setApiKey(event.target.value)}
        />
        <button type="submit">Open</button>
        <p className="hint">
          The runtime must allow this origin (CORS). A deployment's runtime needs none: open it from
          its page.
        </p>
      </form>
    </main>
  );
}
