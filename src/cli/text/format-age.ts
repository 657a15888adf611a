/** Ages as people read them, shared by `mlb status --once` and the Ink view (tui/). */

/**
 * The last `to` parsed: a table asks for thousands of ages up to one snapshot time, and parsing that one text
 * once is a third of the work. A cache of one string and its number: the answer never depends on it.
 */
let lastTo = '';
let lastToMs = Number.NaN;

/** "45s", "12m", "3h20m", "2d4h": the time from `from` to `to` (ISO texts), 0s when reversed or unparsable. */
export function formatAge(from: string, to: string): string {
  if (to !== lastTo) {
    lastTo = to;
    lastToMs = Date.parse(to);
  }
  const seconds = Math.max(0, Math.floor((lastToMs - Date.parse(from)) / 1000)) || 0;
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours}h${minutes % 60 ? `${minutes % 60}m` : ''}`;
  const days = Math.floor(hours / 24);
  return `${days}d${hours % 24 ? `${hours % 24}h` : ''}`;
}
