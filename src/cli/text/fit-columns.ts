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
 * (so names shrink before an IP does). Rows whose cells all fit are handed back as they are: `mlb status --once`
 * passes 10,000 rows, and copying each to cut none of its cells was most of the work.
 */
export function fitColumns(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  width: number,
  shrinkable: readonly (readonly number[])[],
): readonly (readonly string[])[] {
  // Loops, not Math.max(...column): spreading hundreds of thousands of rows into arguments overflows the stack.
  const natural = header.map((h) => h.length);
  for (const r of rows) {
    for (let i = 0; i < natural.length; i++) {
      const length = (r[i] ?? '').length;
      if (length > (natural[i] as number)) natural[i] = length;
    }
  }
  const widths = [...natural];
  const total = () => widths.reduce((a, b) => a + b, 0) + COLUMN_GAP * (widths.length - 1);
  for (const tier of shrinkable) {
    while (total() > width) {
      const widest = tier.reduce((best, i) => ((widths[i] as number) > (widths[best] as number) ? i : best), tier[0] as number);
      if ((widths[widest] as number) <= MIN_COLUMN_WIDTH) break;
      widths[widest] = (widths[widest] as number) - 1;
    }
  }
  // A table that still does not fit (a tiny terminal) is cut by the caller's line clipping.
  const cut = widths.flatMap((w, i) => (w < (natural[i] as number) ? [i] : []));
  if (cut.length === 0) return rows;
  return rows.map((r) => {
    if (cut.every((i) => (r[i] ?? '').length <= (widths[i] as number))) return r;
    const cells = [...r];
    for (const i of cut) if (i < cells.length) cells[i] = truncate(cells[i] as string, widths[i] as number);
    return cells;
  });
}
