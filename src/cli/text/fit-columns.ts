/**
 * Shrinking a table's columns to a terminal's width, shared by `mlb status --once` and the Ink view (tui/).
 */
import { truncate } from './truncate';

/** A column shrunk to fit never gets narrower than this: "demo/we…" still says which service it is. */
const MIN_COLUMN_WIDTH = 8;
/** Column gap of render-table.ts. */
const COLUMN_GAP = 2;

/**
 * Truncates cells until the table fits `width`. `shrinkable` lists tiers of column indexes: the widest column of
 * the first tier loses one character at a time until the tier is at MIN_COLUMN_WIDTH, then the next tier does
 * (so names shrink before an IP does).
 */
export function fitColumns(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  width: number,
  shrinkable: readonly (readonly number[])[],
): string[][] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const total = () => widths.reduce((a, b) => a + b, 0) + COLUMN_GAP * (widths.length - 1);
  for (const tier of shrinkable) {
    while (total() > width) {
      const widest = tier.reduce((best, i) => ((widths[i] as number) > (widths[best] as number) ? i : best), tier[0] as number);
      if ((widths[widest] as number) <= MIN_COLUMN_WIDTH) break;
      widths[widest] = (widths[widest] as number) - 1;
    }
  }
  // A table that still does not fit (a tiny terminal) is cut by the caller's line clipping.
  return rows.map((r) => r.map((cell, i) => truncate(cell, widths[i] as number)));
}
