import { useId, useState } from 'react';
import { liveRevisionAt, type HistoryEntry } from '../domain/history';

/** A `datetime-local` value for a moment, in the browser's time zone. */
function localInputValue(moment: Date): string {
  const shifted = new Date(moment.getTime() - moment.getTimezoneOffset() * 60_000);
  return shifted.toISOString().slice(0, 19);
}

/** "What was live at time T": pick a moment, see the revision that served then. */
export function LiveAt({ history }: { readonly history: readonly HistoryEntry[] }) {
  const [value, setValue] = useState(() => localInputValue(new Date()));
  const id = useId();
  const moment = new Date(value);
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
      />
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
