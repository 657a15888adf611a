/** Plain aligned columns for terminals and logs; the last column is never padded. */
export function renderTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const all = [header, ...rows];
  // A loop, not Math.max(...column): spreading hundreds of thousands of rows into arguments overflows the stack.
  const widths = header.map((_, i) => all.reduce((width, r) => Math.max(width, (r[i] ?? '').length), 0));
  return all
    .map((r) =>
      r
        .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i] as number)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')
    .concat('\n');
}
