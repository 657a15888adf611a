/**
 * The rows of bench/gossip-scale: what was measured, memberlist's expectation for it, and whether it is met. A
 * row that never happened (no convergence, no detection within its time limit) or a false death is never met,
 * and makes the bench exit 1. Pure.
 */

export type Measured =
  | { readonly kind: 'value'; readonly value: number; readonly detail?: string }
  | { readonly kind: 'never'; readonly afterMs: number; readonly detail?: string };

export interface Row {
  readonly profile: string;
  readonly what: string;
  readonly unit: 'ms' | 'count' | 'rate' | 'B/s' | 'pkt/s' | 'bytes';
  readonly measured: Measured;
  /** memberlist's formula, in words and numbers. */
  readonly expectation: string;
  /** The bound the measurement must stay within (undefined: information only). */
  readonly max?: number;
  /** A failure that fails the bench (a false death, a detection that never came), not only a miss. */
  readonly fatal?: boolean;
}

export type Verdict = 'yes' | 'no' | '-';

export function verdict(row: Row): Verdict {
  if (row.measured.kind === 'never') return 'no';
  if (row.max === undefined) return '-';
  return Number.isFinite(row.measured.value) && row.measured.value <= row.max ? 'yes' : 'no';
}

/** Whether the row fails the bench: something that never happened, or a fatal row not met. */
export function failsBench(row: Row): boolean {
  return row.measured.kind === 'never' || (row.fatal === true && verdict(row) === 'no');
}

export function formatValue(value: number, unit: Row['unit']): string {
  switch (unit) {
    case 'ms':
      return value >= 10_000 ? `${(value / 1000).toFixed(1)} s` : `${(value / 1000).toFixed(2)} s`;
    case 'B/s':
      return value >= 10_000 ? `${(value / 1024).toFixed(1)} KiB/s` : `${value.toFixed(0)} B/s`;
    case 'pkt/s':
      return `${value.toFixed(1)} pkt/s`;
    case 'bytes':
      return `${value.toFixed(0)} B`;
    case 'rate':
      return value.toFixed(3);
    case 'count':
      return String(value);
  }
}

export function formatMeasured(measured: Measured, unit: Row['unit']): string {
  const text = measured.kind === 'value' ? formatValue(measured.value, unit) : `never within ${formatValue(measured.afterMs, 'ms')}`;
  return measured.detail ? `${text} (${measured.detail})` : text;
}

/** profile | what | measured | memberlist's formula/expectation | ok, as a Markdown table with aligned columns. */
export function formatTable(rows: readonly Row[]): string[] {
  const header = ['profile', 'what', 'measured', "memberlist's formula / expectation", 'ok'];
  const cells = rows.map((r) => [r.profile, r.what, formatMeasured(r.measured, r.unit), r.expectation, verdict(r)]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: readonly string[]) => `| ${c.map((x, i) => x.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...cells.map(line)];
}
