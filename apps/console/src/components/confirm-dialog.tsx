import { useEffect, useId, useRef, useState, type ReactNode } from 'react';

/**
 * A modal confirmation. With `typeToConfirm`, the action stays disabled until that exact text is
 * typed (deleting a deployment asks for its name).
 */
export function ConfirmDialog({
  title,
  children,
  actionLabel,
  typeToConfirm,
  busy,
  onConfirm,
  onCancel,
}: {
  readonly title: string;
  readonly children: ReactNode;
  readonly actionLabel: string;
  readonly typeToConfirm?: string;
  readonly busy?: boolean;
  readonly onConfirm: () => void;
  readonly onCancel: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [typed, setTyped] = useState('');
  const inputId = useId();
  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
    return () => element?.close();
  }, []);
  const ready = typeToConfirm === undefined || typed === typeToConfirm;
  return (
    <dialog ref={dialog} className="confirm" aria-label={title} onCancel={onCancel}>
      <form
        method="dialog"
        onSubmit={(event) => {
          event.preventDefault();
          if (ready && !busy) onConfirm();
        }}
      >
        <h2>{title}</h2>
        <div>{children}</div>
        {typeToConfirm !== undefined ? (
          <p>
            <label htmlFor={inputId}>
              Type <code>{typeToConfirm}</code> to confirm
            </label>
            <input
              id={inputId}
              autoFocus
              autoComplete="off"
              value={typed}
              onChange={(event) => setTyped(event.target.value)}
            />
          </p>
        ) : null}
        <div className="actions">
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
          <button
            type="submit"
            className="danger"
            disabled={!ready || busy}
            autoFocus={typeToConfirm === undefined}
          >
            {busy ? 'Working…' : actionLabel}
          </button>
        </div>
      </form>
    </dialog>
  );
}
