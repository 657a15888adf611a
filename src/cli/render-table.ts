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
}
