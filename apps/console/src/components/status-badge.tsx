const TONES: Readonly<Record<string, string>> = {
  DEPLOYED: 'good',
  READY: 'good',
  success: 'good',
  idle: 'good',
  BUILD_FAILED: 'bad',
  DEPLOY_FAILED: 'bad',
  CREATE_FAILED: 'bad',
  error: 'bad',
  timeout: 'bad',
  SKIPPED: 'muted',
  INTERRUPTED: 'muted',
  interrupted: 'muted',
  AWAITING_DELETE: 'muted',
};

export function StatusBadge({ status }: { readonly status: string }) {
  return <span className={`badge badge-${TONES[status] ?? 'busy'}`}>{status}</span>;
}
