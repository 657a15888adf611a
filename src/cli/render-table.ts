<<<<<<< HEAD
/**
 * Plain aligned columns for terminals and logs; the last column is never padded. `indent` goes before every line
 * (an indented table: `mlb explain` prints one per service IP, 1,000 rows each at 1,000 nodes, so the lines are
 * made indented rather than split and joined again).
 */
export function renderTable(header: readonly string[], rows: readonly (readonly string[])[], indent = ''): string {
  // A loop, not Math.max(...column): spreading hundreds of thousands of rows into arguments overflows the stack.
  const widths = header.map((h, i) => rows.reduce((width, r) => Math.max(width, (r[i] ?? '').length), h.length));
  const line = (r: readonly string[]): string => {
    let text = indent;
    for (let i = 0; i < r.length; i++) {
      const cell = r[i] as string;
      text += i === 0 ? '' : '  ';
      text += i === r.length - 1 ? cell : cell.padEnd(widths[i] as number);
    }
    return text.trimEnd();
  };
  let table = `${line(header)}\n`;
  for (const r of rows) table += `${line(r)}\n`;
  return table;
=======
/** Plain aligned columns for terminals and logs; the last column is never padded. */
export function renderTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
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
  let text = line(header, widths);
  for (const r of rows) text += line(r, widths);
  return text;
}

/** A row's cells padded to the column widths (all but the last) and two spaces apart, without trailing spaces. */
function line(cells: readonly string[], widths: readonly number[]): string {
  let text = '';
  const last = cells.length - 1;
  for (let i = 0; i < last; i++) text += `${(cells[i] as string).padEnd(widths[i] ?? 0)}  `;
  if (last >= 0) text += cells[last] as string;
  return `${text.trimEnd()}\n`;
>>>>>>> h-status
}
