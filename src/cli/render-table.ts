/**
 * Plain aligned columns for terminals and logs; the last column is never padded. `indent` goes before every line
 * (an indented table: `mlb explain` prints one per service IP, 1,000 rows each at 1,000 nodes, so the lines are
 * made indented rather than split and joined again).
 */
export function renderTable(header: readonly string[], rows: readonly (readonly string[])[], indent = ''): string {
  // Loops, not Math.max(...column): spreading hundreds of thousands of rows into arguments overflows the stack.
  const widths = header.map((h) => h.length);
  for (const r of rows) {
    for (let i = 0; i < widths.length; i++) {
      const length = (r[i] ?? '').length;
      if (length > (widths[i] as number)) widths[i] = length;
    }
  }
  // One string built line by line: `mlb status --once` renders 10,000 rows, and an array per row cost more than
  // the text itself.
  let text = line(header, widths, indent);
  for (const r of rows) text += line(r, widths, indent);
  return text;
}

/** A row's cells padded to the column widths (all but the last) and two spaces apart, without trailing spaces. */
function line(cells: readonly string[], widths: readonly number[], indent: string): string {
  let text = indent;
  const last = cells.length - 1;
  for (let i = 0; i < last; i++) text += `${(cells[i] as string).padEnd(widths[i] ?? 0)}  `;
  if (last >= 0) text += cells[last] as string;
  return `${text.trimEnd()}\n`;
}
