import { createContext, useContext, useMemo, type ReactNode } from 'react';
import type { Client } from '@langchain/langgraph-sdk';
import { runtimeClient, runtimeConnection, type RuntimeTarget } from '../api/runtime';
import { useSession } from '../session';

type RuntimeState = {
  readonly client: Client;
  /** What `useStream` is given: the runtime's URL and key. */
  readonly connection: { readonly apiUrl: string; readonly apiKey: string };
  readonly target: RuntimeTarget;
  readonly key: string;
};

const RuntimeContext = createContext<RuntimeState | null>(null);

/** The official SDK's client for the runtime the nested pages look at. */
export function RuntimeProvider({
  target,
  children,
}: {
  readonly target: RuntimeTarget;
  readonly children: ReactNode;
}) {
  const { apiKey } = useSession();
  const key = target.kind === 'deployment' ? target.deploymentId : target.url;
  const state = useMemo(
    () => ({
      client: runtimeClient(target, apiKey),
      connection: runtimeConnection(target, apiKey),
      target,
      key,
    }),
    // The target is a fresh object on each render; what identifies it is its key.
    [key, apiKey],
  );
  return <RuntimeContext.Provider value={state}>{children}</RuntimeContext.Provider>;
}

export function useRuntime(): RuntimeState {
  const state = useContext(RuntimeContext);
  if (!state) throw new Error('useRuntime outside RuntimeProvider');
  return state;
}
