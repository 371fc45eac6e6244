/** The listener a request names, as the caller found it; null when no such listener exists. */
export type ListenerInfo = { id: string; compute_type: 'local' | 'cluster' } | null;
