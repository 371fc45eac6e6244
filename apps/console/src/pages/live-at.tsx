import { useId, useState } from 'react';
import { liveRevisionAt, type HistoryEntry } from '../domain/history';

/** "What was live at time T": pick a moment, see the revision that served then. */
export function LiveAt({ history }: { readonly history: readonly HistoryEntry[] }) {
  // Empty means now: the page follows the deployment, so "now" moves with it.
  const [value, setValue] = useState('');
  const id = useId();
  const moment = value === '' ? new Date() : new Date(value);
  const valid = !Number.isNaN(moment.getTime());
  const live = valid ? liveRevisionAt(history, moment) : null;
  return (
    <section className="live-at" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>What was live at…</h2>
      <label htmlFor={id}>Moment</label>
      <input
        id={id}
        type="datetime-local"
        step={1}
        value={value}
        onChange={(event) => setValue(event.target.value)}
      />{' '}
      <button type="button" disabled={value === ''} onClick={() => setValue('')}>
        Now
      </button>
      <p aria-live="polite" data-testid="live-at-answer">
        {!valid ? (
          'Pick a moment.'
        ) : live ? (
          <>
            Revision <code>{live}</code> was live.
          </>
        ) : (
          'No revision was live then.'
        )}
      </p>
    </section>
  );
}
