import type { KeyboardEvent } from 'react';

/** In a message box, Enter sends its form and Shift+Enter makes a new line. */
export function sendOnEnter(event: KeyboardEvent<HTMLTextAreaElement>): void {
  if (event.key !== 'Enter' || event.shiftKey || event.nativeEvent.isComposing) return;
  event.preventDefault();
  event.currentTarget.form?.requestSubmit();
}
