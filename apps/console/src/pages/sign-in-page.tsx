import { useState } from 'react';
import { controlPlaneClient } from '../api/control-plane';
import { errorText } from '../api/api-error';
import { useSessionState } from '../session';

/** Signing in checks the key against the API before keeping it for this tab. */
export function SignInPage() {
  const { signIn } = useSessionState();
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <main className="sign-in">
      <h1>Berth console</h1>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          setBusy(true);
          setError(null);
          controlPlaneClient(key)
            .GET('/v2/deployments', { params: { query: { limit: 1 } } })
            .then(() => signIn(key))
            .catch((failure: unknown) => setError(errorText(failure)))
            .finally(() => setBusy(false));
        }}
      >
        <label htmlFor="api-key">API key (the control plane's or a tenant's)</label>
        <input
          id="api-key"
          type="password"
          autoComplete="current-password"
          autoFocus
          required
          value={key}
          onChange={(event) => setKey(event.target.value)}
        />
        <button type="submit" disabled={busy || key === ''}>
          {busy ? 'Checking…' : 'Sign in'}
        </button>
        {error ? (
          <p role="alert" className="state state-error">
            {error}
          </p>
        ) : null}
        <p className="hint">
          The key is kept in this tab's session storage only, until you sign out or close the tab.
        </p>
      </form>
    </main>
  );
}
