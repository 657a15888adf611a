/**
 * bench/scale's table, pure: what each row measured (a value, a timeout, a failure or nothing), its target at the
 * size measured, whether the target is met, and the text of `what | size | measured | target | ok`.
 *
 * The targets are the acceptance table of the scale work (one daemon, single node, layer 2): sizes up to 1,000
 * services are held to the 1,000 column, larger ones to the 10,000 column.
 */

export type Unit = 'bytes' | 'ms' | 'percent' | 'ratio' | 'us' | 'count';

export type Measured =
  | { readonly kind: 'value'; readonly value: number; readonly detail?: string }
  /** Still not done when the row's time was up: reported as "> N s (timeout)", never as met. */
  | { readonly kind: 'timeout'; readonly afterMs: number; readonly detail?: string }
  /** The thing measured failed (exited, crashed, refused): never met. */
  | { readonly kind: 'failed'; readonly why: string }
  /** Could not be measured in this run (an earlier step failed): never met. */
  | { readonly kind: 'skipped'; readonly why: string };

/** Met when the value is at most `max` (every target of the table is an upper bound). */
export interface Target {
  readonly max: number;
  /** How the target reads when it is not just "<= max" (a ratio against the kernel, "flat"). */
  readonly text?: string;
}

export interface Row {
  readonly what: string;
  /** Services held by the daemon ("1000"), or '-' for rows that do not depend on it. */
  readonly size: string;
  readonly unit: Unit;
  readonly measured: Measured;
  /** Undefined: an information row, no verdict. */
  readonly target?: Target;
}

export type Verdict = 'yes' | 'no' | '-';

const MB = 1024 * 1024;

/** The acceptance targets at one size. */
export interface SizeTargets {
  readonly rssBytes: number;
  readonly bindMs: number;
  readonly idleCpuPercent: number;
}

/** 1,000 services: RSS 80 MB, every VIP bound 1 s after start, 1 % of a core idle. */
const TARGETS_1K: SizeTargets = { rssBytes: 80 * MB, bindMs: 1_000, idleCpuPercent: 1 };
/** 10,000 services: RSS 150 MB, bound in 3 s, 2 % of a core idle. */
const TARGETS_10K: SizeTargets = { rssBytes: 150 * MB, bindMs: 3_000, idleCpuPercent: 2 };
/** The largest size held to the 1,000 column. */
const SMALL_SIZE_LIMIT = 1_000;

export function targetsFor(services: number): SizeTargets {
  return services <= SMALL_SIZE_LIMIT ? TARGETS_1K : TARGETS_10K;
}

/** The targets that do not depend on the size. */
export const FIXED_TARGETS = {
  /** mlb's median ARP reply latency at most twice the kernel's answering for its own address. */
  arpP50Ratio: 2,
  arpP99Us: 1_000,
  arpLost: 0,
  editToAnnouncedMs: 500,
  statusMs: 300,
  /** systemd's TimeoutStopSec is 15 s (systemd/mlb.service); 5 s leaves the handover room on a loaded host. */
  stopMs: 5_000,
  /** `mlb --help` at most 1.3 times a bare `node -e 0`: the CLI adds little to Node's own start. */
  helpRatio: 1.3,
} as const;

/** "Flat across reloads": the RSS settled after the reloads at most this much above the RSS settled before. */
export const FLAT_RSS_GROWTH = 0.1;

export function verdict(row: Row): Verdict {
  if (!row.target) return '-';
  if (row.measured.kind !== 'value') return 'no';
  return Number.isFinite(row.measured.value) && row.measured.value <= row.target.max ? 'yes' : 'no';
}

export function formatValue(value: number, unit: Unit): string {
  if (!Number.isFinite(value)) return '-';
  switch (unit) {
    case 'bytes':
      return `${(value / MB).toFixed(value < 10 * MB ? 1 : 0)} MB`;
    case 'ms':
      return value >= 1_000 ? `${(value / 1_000).toFixed(2)} s` : `${Math.round(value)} ms`;
    case 'us':
      return value >= 1_000 ? `${(value / 1_000).toFixed(2)} ms` : `${value.toFixed(value < 10 ? 1 : 0)} µs`;
    case 'percent':
      return `${value.toFixed(value < 10 ? 2 : 1)} %`;
    case 'ratio':
      return `${value.toFixed(2)}x`;
    case 'count':
      return String(Math.round(value));
  }
}

export function formatMeasured(measured: Measured, unit: Unit): string {
  const withDetail = (text: string, detail: string | undefined) => (detail ? `${text} (${detail})` : text);
  switch (measured.kind) {
    case 'value':
      return withDetail(formatValue(measured.value, unit), measured.detail);
    case 'timeout':
      return withDetail(`> ${formatValue(measured.afterMs, 'ms')} (timeout)`, measured.detail);
    case 'failed':
      return `failed: ${measured.why}`;
    case 'skipped':
      return `not measured: ${measured.why}`;
  }
}

export function formatTarget(target: Target | undefined, unit: Unit): string {
  if (!target) return '(info)';
  return target.text ?? `<= ${formatValue(target.max, unit)}`;
}

const TABLE_HEADER = ['what', 'size', 'measured', 'target', 'ok'] as const;

function rowCells(row: Row): [string, string, string, string, Verdict] {
  return [row.what, row.size, formatMeasured(row.measured, row.unit), formatTarget(row.target, row.unit), verdict(row)];
}

/** `what | size | measured | target | ok`, columns padded to their widest cell. */
export function formatTable(rows: readonly Row[]): string[] {
  const cells: string[][] = [[...TABLE_HEADER], ...rows.map(rowCells)];
  const widths = TABLE_HEADER.map((_, i) => Math.max(...cells.map((c) => c[i]!.length)));
  return cells.map((c) =>
    c
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join(' | ')
      .trimEnd(),
  );
}
