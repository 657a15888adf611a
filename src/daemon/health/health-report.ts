/**
 * Health results travel in gossip (docs/architecture.md, "Node facts travel in gossip"): each node publishes one
 * report of its own checks, every node keeps the newest report per node, and the election takes as endpoints of a
 * health-checked service exactly the live nodes whose report says passing. Pure: the codec, the merge and the
 * verdicts; the speaker carries the bytes in memberlist broadcasts and push/pull user state.
 *
 * The v1 layout below is what releases before records version 2 read and write (records/legacy-records.ts);
 * records version 2 sends records/health-report-body.ts.
 *
 * Layout, version 1 (big-endian; strings UTF-8):
 *   0       4         5         6            6+n        14+n       22+n      24+n
 *   +-------+---------+---------+------------+----------+----------+---------+-----------------------------+
 *   | "mlbh"| version | nodeLen | node       | epoch u64| seq u64  | count   | count x ([status][klen][key])|
 *   +-------+---------+---------+------------+----------+----------+---------+-----------------------------+
 * nodeLen, status and klen are u8; count is u16. epoch and seq are at most 2^53 - 1 (JavaScript's safe
 * integers). status: 0 failing, 1 passing. Keys are strictly ascending, so a report has one encoding.
 * A decoder ignores bytes after the last entry, so a later version can append fields without a new version.
 */

import { CodedError } from '../../errors/coded-error';

const HEALTH_REPORT_MAGIC = Uint8Array.of(0x6d, 0x6c, 0x62, 0x68); // "mlbh"
const HEALTH_REPORT_VERSION = 1;
/**
 * The largest report encoded or accepted (about 2,000 services of 30-byte keys). Bounds what a peer can make us
 * allocate; a report that also fits one gossip packet (about 1,300 bytes) can go out as a broadcast, a larger one
 * only in push/pull state.
 */
export const HEALTH_REPORT_MAX_BYTES = 64 * 1024;
/** u8 lengths: Kubernetes node names are at most 253 bytes, "namespace/name" service keys at most 127. */
const HEALTH_REPORT_MAX_STRING_BYTES = 255;
const MAX_ENTRIES = 0xffff;
const STATUS_FAILING = 0;
const STATUS_PASSING = 1;
const HEADER_BYTES = HEALTH_REPORT_MAGIC.length + 2;

export interface HealthReport {
  readonly node: string;
  /** The reporting daemon's start time in ms: a restarted node's reports win over its previous life's. */
  readonly epoch: number;
  /** Increases with every new report within one epoch. */
  readonly seq: number;
  /** Service key -> passing. Lists every health-checked service the node knows; unchecked ones are absent. */
  readonly results: Readonly<Record<string, boolean>>;
}

export class HealthReportError extends CodedError<'reportTooLarge' | 'stringTooLong' | 'invalidReport'> {}

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

/** Throws HealthReportError when the report cannot be encoded within the limits above. */
export function encodeHealthReport(report: HealthReport): Uint8Array {
  if (report.node === '') throw new HealthReportError('invalidReport', 'a health report needs a node name');
  for (const [name, n] of [
    ['epoch', report.epoch],
    ['seq', report.seq],
  ] as const) {
    if (!Number.isSafeInteger(n) || n < 0) throw new HealthReportError('invalidReport', `${name} must be a whole number >= 0, not ${n}`);
  }
  const entries = sortedEntries(report.results);
  if (entries.length > MAX_ENTRIES) throw new HealthReportError('reportTooLarge', `${entries.length} services exceed ${MAX_ENTRIES}`);
  const node = stringBytes(report.node);
  const keys = entries.map(([key]) => stringBytes(key));
  const size = HEADER_BYTES + node.length + 8 + 8 + 2 + keys.reduce((sum, k) => sum + 2 + k.length, 0);
  if (size > HEALTH_REPORT_MAX_BYTES) {
    throw new HealthReportError('reportTooLarge', `health report is ${size} bytes, at most ${HEALTH_REPORT_MAX_BYTES}`);
  }
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  out.set(HEALTH_REPORT_MAGIC, 0);
  let at = HEALTH_REPORT_MAGIC.length;
  out[at++] = HEALTH_REPORT_VERSION;
  out[at++] = node.length;
  out.set(node, at);
  at += node.length;
  view.setBigUint64(at, BigInt(report.epoch));
  view.setBigUint64(at + 8, BigInt(report.seq));
  view.setUint16(at + 16, entries.length);
  at += 18;
  entries.forEach(([, passing], i) => {
    const key = keys[i] as Uint8Array;
    out[at++] = passing ? STATUS_PASSING : STATUS_FAILING;
    out[at++] = key.length;
    out.set(key, at);
    at += key.length;
  });
  return out;
}

/**
 * The report, or undefined for anything else: another payload, a newer incompatible version, a truncated or
 * damaged report, one over the size limit. Never throws (a receive path must not).
 */
export function decodeHealthReport(bytes: Uint8Array): HealthReport | undefined {
  if (bytes.length < HEADER_BYTES || bytes.length > HEALTH_REPORT_MAX_BYTES) return undefined;
  if (!HEALTH_REPORT_MAGIC.every((b, i) => bytes[i] === b)) return undefined;
  if (bytes[HEALTH_REPORT_MAGIC.length] !== HEALTH_REPORT_VERSION) return undefined;
  try {
    const r = new Reader(bytes, HEALTH_REPORT_MAGIC.length + 1);
    const node = r.string();
    const epoch = r.u64();
    const seq = r.u64();
    const entries: [string, boolean][] = [];
    let previous: string | undefined;
    for (let n = r.u16(); n > 0; n--) {
      const status = r.u8();
      const key = r.string();
      if (status !== STATUS_FAILING && status !== STATUS_PASSING) return undefined;
      if (previous !== undefined && !(previous < key)) return undefined;
      previous = key;
      entries.push([key, status === STATUS_PASSING]);
    }
    if (node === '' || epoch === undefined || seq === undefined) return undefined;
    // Entries, not assignment: a key called "__proto__" must stay a key.
    return { node, epoch, seq, results: Object.fromEntries(entries) };
  } catch {
    return undefined;
  }
}

// ------------------------------------------------------------------------------------------ the table

/** Why a report was or was not taken. */
export type HealthMergeReason = 'firstReport' | 'newer' | 'stale' | 'duplicate';

export interface HealthMerge {
  readonly table: ReadonlyMap<string, HealthReport>;
  readonly changed: boolean;
  readonly reason: HealthMergeReason;
}

/**
 * Keeps the newest report per node: higher epoch wins (a restarted daemon), then higher seq. Two different
 * reports with the same (epoch, seq) cannot come from a correct node; the greater one (by content) is kept so
 * every node ends with the same table whatever order gossip delivered them in.
 */
export function mergeHealthReport(table: ReadonlyMap<string, HealthReport>, incoming: HealthReport): HealthMerge {
  const current = table.get(incoming.node);
  if (current === undefined) return { table: withReport(table, incoming), changed: true, reason: 'firstReport' };
  const order = compareReports(incoming, current);
  if (order > 0) return { table: withReport(table, incoming), changed: true, reason: 'newer' };
  return { table, changed: false, reason: order === 0 ? 'duplicate' : 'stale' };
}

/** The table without nodes outside `nodes` (members that left or were declared dead and reaped). */
export function retainHealthReports(
  table: ReadonlyMap<string, HealthReport>,
  nodes: ReadonlySet<string>,
): ReadonlyMap<string, HealthReport> {
  return new Map([...table].filter(([node]) => nodes.has(node)));
}

/** Why a live node is or is not an endpoint of a service; `mlb explain` shows these. */
export type ServingReason =
  /** The service has no health check: every live node is an endpoint (docs/architecture.md, file mode). */
  | 'noHealthCheck'
  | 'passing'
  | 'failing'
  /** No report from this node yet (just joined, or an mlb without health checks). */
  | 'noReport'
  /** Its report does not list the service (its configuration differs, or the check has not started there). */
  | 'notInReport';

export interface ServingVerdict {
  readonly serving: boolean;
  readonly reason: ServingReason;
}

/**
 * Each live node's verdict for one service. `checkedLocally`: whether this node's configuration gives the
 * service a health check (every node reads the same file, so this is the cluster's answer); when not given it
 * is inferred from the reports: checked if any live node reports on the service.
 *
 * A live node without a passing result for a health-checked service is NOT an endpoint. On a plain host the
 * commonest failure is a service not running (or not installed) on some host; counting a silent node as healthy
 * would pull the VIP to exactly that host. The price is that a node joining takes the VIP only after its first
 * report arrives (one gossip round after its first probe).
 */
export function healthVerdicts(
  table: ReadonlyMap<string, HealthReport>,
  serviceKey: string,
  liveNodes: Iterable<string>,
  checkedLocally?: boolean,
): Map<string, ServingVerdict> {
  const live = [...new Set(liveNodes)];
  const checked = checkedLocally ?? live.some((node) => Object.hasOwn(table.get(node)?.results ?? {}, serviceKey));
  return new Map(live.map((node) => [node, verdictOf(table.get(node), serviceKey, checked)]));
}

/** The live nodes that may hold the service's IP (see healthVerdicts). */
export function servingNodes(
  table: ReadonlyMap<string, HealthReport>,
  serviceKey: string,
  liveNodes: Iterable<string>,
  checkedLocally?: boolean,
): Set<string> {
  const verdicts = healthVerdicts(table, serviceKey, liveNodes, checkedLocally);
  return new Set([...verdicts].filter(([, v]) => v.serving).map(([node]) => node));
}

function verdictOf(report: HealthReport | undefined, serviceKey: string, checked: boolean): ServingVerdict {
  if (!checked) return { serving: true, reason: 'noHealthCheck' };
  if (report === undefined) return { serving: false, reason: 'noReport' };
  if (!Object.hasOwn(report.results, serviceKey)) return { serving: false, reason: 'notInReport' };
  return report.results[serviceKey] ? { serving: true, reason: 'passing' } : { serving: false, reason: 'failing' };
}

function withReport(table: ReadonlyMap<string, HealthReport>, report: HealthReport): Map<string, HealthReport> {
  return new Map(table).set(report.node, report);
}

function compareReports(a: HealthReport, b: HealthReport): number {
  if (a.epoch !== b.epoch) return a.epoch - b.epoch;
  if (a.seq !== b.seq) return a.seq - b.seq;
  const ca = canonical(a);
  const cb = canonical(b);
  return ca === cb ? 0 : ca > cb ? 1 : -1;
}

function canonical(report: HealthReport): string {
  return JSON.stringify(sortedEntries(report.results));
}

function sortedEntries(results: Readonly<Record<string, boolean>>): [string, boolean][] {
  return Object.entries(results).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function stringBytes(text: string): Uint8Array {
  const bytes = utf8.encode(text);
  // A lone surrogate would be sent as U+FFFD and come back as a different string (or a duplicate key).
  if (utf8Decoder.decode(bytes) !== text) throw new HealthReportError('invalidReport', `"${text.slice(0, 40)}" is not valid Unicode`);
  if (bytes.length > HEALTH_REPORT_MAX_STRING_BYTES) {
    throw new HealthReportError(
      'stringTooLong',
      `"${text.slice(0, 40)}" is ${bytes.length} bytes; a health report allows ${HEALTH_REPORT_MAX_STRING_BYTES}`,
    );
  }
  return bytes;
}

/** Reads distrusting every length; a read past the end throws RangeError, which decode turns into undefined. */
class Reader {
  private readonly view: DataView;

  constructor(
    private readonly bytes: Uint8Array,
    private offset: number,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  u8(): number {
    const b = this.bytes[this.offset];
    if (b === undefined) throw new RangeError('health report truncated');
    this.offset += 1;
    return b;
  }

  u16(): number {
    const n = this.view.getUint16(this.offset);
    this.offset += 2;
    return n;
  }

  /** undefined above 2^53 - 1. */
  u64(): number | undefined {
    const n = this.view.getBigUint64(this.offset);
    this.offset += 8;
    return n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : undefined;
  }

  string(): string {
    const length = this.u8();
    if (this.offset + length > this.bytes.length) throw new RangeError('health report truncated');
    const text = utf8Decoder.decode(this.bytes.subarray(this.offset, this.offset + length));
    this.offset += length;
    return text;
  }
}
