/**
 * Cutting text to a width, shared by the plain `mlb status --once` tables and the Ink view (tui/), so both cut
 * the same way. It lives outside commands/ and tui/ so neither imports the other.
 */

const ELLIPSIS = '…';

/** Cuts text to `width` characters, the last one an ellipsis when anything was cut. */
export function truncate(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, Math.max(0, width - 1))}${ELLIPSIS}`;
}
