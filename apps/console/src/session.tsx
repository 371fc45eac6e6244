import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';
import { controlPlaneClient, type ControlPlane } from './api/control-plane';

const KEY_ITEM = 'berth.console.api-key';

/** The signed-in key lives in this tab's session storage only: never in a URL, never on disk. */
export type Session = {
  readonly apiKey: string;
  readonly api: ControlPlane;
  readonly signOut: () => void;
};

type SessionState = {
  readonly session: Session | null;
  readonly signIn: (apiKey: string) => void;
};

const SessionContext = createContext<SessionState | null>(null);

export function SessionProvider({ children }: { readonly children: ReactNode }) {
  const [apiKey, setApiKey] = useState<string | null>(() => sessionStorage.getItem(KEY_ITEM));
  const signIn = useCallback((key: string) => {
    sessionStorage.setItem(KEY_ITEM, key);
    setApiKey(key);
  }, []);
  const signOut = useCallback(() => {
    sessionStorage.clear();
    setApiKey(null);
  }, []);
  const state = useMemo<SessionState>(
    () => ({
      session: apiKey ? { apiKey, api: controlPlaneClient(apiKey), signOut } : null,
      signIn,
    }),
    [apiKey, signIn, signOut],
  );
  return <SessionContext.Provider value={state}>{children}</SessionContext.Provider>;
}

export function useSessionState(): SessionState {
  const state = useContext(SessionContext);
  if (!state) throw new Error('useSessionState outside SessionProvider');
  return state;
}

/** The session of a page behind sign-in. */
export function useSession(): Session {
  const { session } = useSessionState();
  if (!session) throw new Error('useSession on a page shown without a session');
  return session;
}
