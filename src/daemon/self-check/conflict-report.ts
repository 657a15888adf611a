/**
 * Split-brain conflicts travel in gossip: the node that sees another MAC answer one of its IPs publishes a small
 * report of what it sees, and every node shows the conflicts of every live member's latest report, marked with
 * the node that observed them, in `mlb status` and mlb_conflicts_active. Only the owner probes its IPs, so
 * without this the other nodes would say "healthy" through a split brain. Pure: the codec, the merge and the
 * expiry; the speaker carries the bytes in memberlist broadcasts and push/pull user state.
 *
 * The v1 layout below is what releases before records version 2 read and write (records/legacy-records.ts);
 * records version 2 sends records/conflict-report-body.ts.
 *
 * Layout, version 1 (big-endian; strings UTF-8):
 *   "mlbc" (4) | version u8 | nodeLen u8 | node | epoch u64 | seq u64 | active u32 | count u8 |
 *   count x ( family u8 (4 or 6) | address (4 or 16 bytes) | mac (6 bytes) | firstSeen u64 | lastSeen u64 )
 * epoch, seq and the times are at most 2^53 - 1 (JavaScript's safe integers); times are the observer's epoch ms.
 * A decoder ignores bytes after the last entry, so a later version can append fields without a new version.
 */
import { formatIP, parseIP } from '../../ip';

const CONFLICT_REPORT_MAGIC = Uint8Array.of(0x6d, 0x6c, 0x62, 0x63); // "mlbc"
const CONFLICT_REPORT_VERSION = 1;
/**
 * Conflicts listed per report. At most 39 bytes each, 16 keep a report with a 255-byte node name under 950 bytes,
 * so it goes out as one gossip broadcast (a UDP packet of about 1,400 bytes); the `active` count stays exact
 * beyond them, and the observer's own status lists the rest.
 */
export const CONFLICT_REPORT_MAX_ENTRIES = 16;
/** The observer republishes a report that lists conflicts this often, so their last-seen times stay fresh elsewhere. */
export const CONFLICT_REPORT_REFRESH_MS = 10_000;
/**
 * A report not heard again for this long is dropped: three refreshes, so two lost broadcasts (push/pull carries it
 * too) never hide a live conflict, and an observer gone quiet without a goodbye stops being shown.
 */
export const CONFLICT_REPORT_TTL_MS = 3 * CONFLICT_REPORT_REFRESH_MS;
const MAX_NODE_BYTES = 255;
const MAC_BYTES = 6;

export interface ReportedConflict {
  /** Canonical IP text. */
  readonly ip: string;
  /** Lowercase, colon-separated. */
  readonly mac: string;
  readonly firstSeen: number;
  readonly lastSeen: number;
}

export interface ConflictReport {
  /** The node that observed the conflicts (the IPs' owner in its view). */
  readonly node: string;
  /** The observer's start time: a restarted node's reports win over its previous life's. */
  readonly epoch: number;
  readonly seq: number;
  /** Every (IP, MAC) conflict it counts as active, listed or not. */
  readonly active: number;
  readonly conflicts: readonly ReportedConflict[];
}

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

/** The report's bytes; conflicts beyond CONFLICT_REPORT_MAX_ENTRIES and a node name over 255 bytes are cut. */
export function encodeConflictReport(report: ConflictReport): Uint8Array {
  let node = utf8.encode(report.node);
  if (node.length > MAX_NODE_BYTES) node = node.slice(0, MAX_NODE_BYTES);
  const entries = report.conflicts.slice(0, CONFLICT_REPORT_MAX_ENTRIES).flatMap((c) => {
    const ip = parseIP(c.ip);
    const mac = macBytes(c.mac);
    return ip && mac ? [{ ip, mac, c }] : [];
  });
  const size =
    CONFLICT_REPORT_MAGIC.length +
    2 +
    node.length +
    8 +
    8 +
    4 +
    1 +
    entries.reduce((n, e) => n + 1 + (e.ip.family === 4 ? 4 : 16) + MAC_BYTES + 16, 0);
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  out.set(CONFLICT_REPORT_MAGIC, 0);
  let at = CONFLICT_REPORT_MAGIC.length;
  out[at++] = CONFLICT_REPORT_VERSION;
  out[at++] = node.length;
  out.set(node, at);
  at += node.length;
  view.setBigUint64(at, BigInt(safe(report.epoch)));
  view.setBigUint64(at + 8, BigInt(safe(report.seq)));
  view.setUint32(at + 16, Math.min(safe(report.active), 0xffffffff));
  out[at + 20] = entries.length;
  at += 21;
  for (const { ip, mac, c } of entries) {
    out[at++] = ip.family;
    const width = ip.family === 4 ? 4 : 16;
    for (let i = 0; i < width; i++) out[at + i] = Number((ip.value >> BigInt(8 * (width - 1 - i))) & 0xffn);
    at += width;
    out.set(mac, at);
    at += MAC_BYTES;
    view.setBigUint64(at, BigInt(safe(c.firstSeen)));
    view.setBigUint64(at + 8, BigInt(safe(c.lastSeen)));
    at += 16;
  }
  return out;
}

/** The report, or undefined for anything else (another payload, another version, damaged). Never throws. */
export function decodeConflictReport(bytes: Uint8Array): ConflictReport | undefined {
  if (bytes.length < CONFLICT_REPORT_MAGIC.length + 2) return undefined;
  if (!CONFLICT_REPORT_MAGIC.every((b, i) => bytes[i] === b)) return undefined;
  if (bytes[CONFLICT_REPORT_MAGIC.length] !== CONFLICT_REPORT_VERSION) return undefined;
  try {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let at = CONFLICT_REPORT_MAGIC.length + 1;
    const need = (n: number): void => {
      if (at + n > bytes.length) throw new RangeError('truncated');
    };
    need(1);
    const nodeLength = bytes[at++] as number;
    need(nodeLength + 21);
    const node = utf8Decoder.decode(bytes.subarray(at, at + nodeLength));
    at += nodeLength;
    const epoch = safeNumber(view.getBigUint64(at));
    const seq = safeNumber(view.getBigUint64(at + 8));
    const active = view.getUint32(at + 16);
    const count = bytes[at + 20] as number;
    at += 21;
    if (node === '' || epoch === undefined || seq === undefined || count > CONFLICT_REPORT_MAX_ENTRIES) return undefined;
    const conflicts: ReportedConflict[] = [];
    for (let n = 0; n < count; n++) {
      need(1);
      const family = bytes[at++];
      if (family !== 4 && family !== 6) return undefined;
      const width = family === 4 ? 4 : 16;
      need(width + MAC_BYTES + 16);
      let value = 0n;
      for (let i = 0; i < width; i++) value = (value << 8n) | BigInt(bytes[at + i] as number);
      at += width;
      const mac = [...bytes.subarray(at, at + MAC_BYTES)].map((b) => b.toString(16).padStart(2, '0')).join(':');
      at += MAC_BYTES;
      const firstSeen = safeNumber(view.getBigUint64(at));
      const lastSeen = safeNumber(view.getBigUint64(at + 8));
      at += 16;
      if (firstSeen === undefined || lastSeen === undefined) return undefined;
      conflicts.push({ ip: formatIP({ family, value }), mac, firstSeen, lastSeen });
    }
    return { node, epoch, seq, active: Math.max(active, conflicts.length), conflicts };
  } catch {
    return undefined;
  }
}

// ------------------------------------------------------------------------------------------ the table

export interface HeardReport {
  readonly report: ConflictReport;
  /** When this node last heard it (its own clock: observers' clocks may differ). */
  readonly heardAt: number;
}

export type ConflictReportTable = ReadonlyMap<string, HeardReport>;

/** Why a report was or was not taken. */
export type ConflictReportMerge = 'firstReport' | 'newer' | 'refreshed' | 'stale';

/**
 * Keeps the newest report per observer: higher epoch (a restarted daemon), then higher seq. The same report heard
 * again (a relay, a push/pull) only refreshes when it was heard.
 */
export function mergeConflictReport(
  table: ConflictReportTable,
  incoming: ConflictReport,
  now: number,
): { table: ConflictReportTable; changed: boolean; reason: ConflictReportMerge } {
  const current = table.get(incoming.node)?.report;
  const order = current === undefined ? 1 : incoming.epoch !== current.epoch ? incoming.epoch - current.epoch : incoming.seq - current.seq;
  if (order < 0) return { table, changed: false, reason: 'stale' };
  const next = new Map(table).set(incoming.node, { report: order > 0 ? incoming : current!, heardAt: now });
  if (order === 0) return { table: next, changed: false, reason: 'refreshed' };
  return { table: next, changed: true, reason: current === undefined ? 'firstReport' : 'newer' };
}

/**
 * The table without reports of observers that are not live members (a node gone takes its findings with it) and
 * without reports not heard for CONFLICT_REPORT_TTL_MS.
 */
export function retainConflictReports(
  table: ConflictReportTable,
  live: ReadonlySet<string>,
  now: number,
  ttlMs = CONFLICT_REPORT_TTL_MS,
): { table: ConflictReportTable; dropped: { node: string; reason: 'notLive' | 'notHeard' }[] } {
  const dropped: { node: string; reason: 'notLive' | 'notHeard' }[] = [];
  for (const [node, heard] of table) {
    if (!live.has(node)) dropped.push({ node, reason: 'notLive' });
    else if (now - heard.heardAt >= ttlMs) dropped.push({ node, reason: 'notHeard' });
  }
  if (dropped.length === 0) return { table, dropped };
  const next = new Map(table);
  for (const d of dropped) next.delete(d.node);
  return { table: next, dropped };
}

/** Whether the observer publishes a new report: its list changed, or it lists conflicts and the refresh is due. */
export function reportDue(
  published: { readonly fingerprint: string; readonly at: number } | undefined,
  conflicts: readonly ReportedConflict[],
  active: number,
  now: number,
): { due: boolean; fingerprint: string; reason: 'changed' | 'refresh' | 'unchanged' } {
  const fingerprint = `${active}|${conflicts.map((c) => `${c.ip}|${c.mac}`).join(',')}`;
  if (!published || published.fingerprint !== fingerprint) return { due: true, fingerprint, reason: 'changed' };
  if (active > 0 && now - published.at >= CONFLICT_REPORT_REFRESH_MS) return { due: true, fingerprint, reason: 'refresh' };
  return { due: false, fingerprint, reason: 'unchanged' };
}

function macBytes(mac: string): Uint8Array | undefined {
  const parts = mac.split(':');
  if (parts.length !== MAC_BYTES || !parts.every((p) => /^[0-9a-f]{2}$/i.test(p))) return undefined;
  return Uint8Array.from(parts.map((p) => parseInt(p, 16)));
}

function safe(n: number): number {
  return Number.isSafeInteger(n) && n >= 0 ? n : 0;
}

function safeNumber(n: bigint): number | undefined {
  return n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : undefined;
}
