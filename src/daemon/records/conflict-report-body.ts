/**
 * A split-brain conflict report (self-check/conflict-report.ts) as a record body:
 *   [node, epoch, seq, active, [[ip bytes, mac bytes, firstSeen, lastSeen]...]]
 * At most CONFLICT_REPORT_MAX_ENTRIES conflicts are listed (the count `active` stays exact beyond them). Pure.
 */
import { formatIP, ipFromBytes, parseIP, ipToBytes } from '../../ip';
import type { MsgpackWriter } from '../../gossip/codec/msgpack-writer';
import type { MsgValue } from '../../gossip/codec/msgpack-reader';
import { CONFLICT_REPORT_MAX_ENTRIES, type ConflictReport, type ReportedConflict } from '../self-check/conflict-report';
import { RECORD_NODE_MAX_BYTES } from './health-report-body';
import { RecordFields } from './record-fields';

const MAC_BYTES = 6;

export function writeConflictReport(w: MsgpackWriter, report: ConflictReport): void {
  const entries = report.conflicts.slice(0, CONFLICT_REPORT_MAX_ENTRIES).flatMap((c) => {
    const ip = parseIP(c.ip);
    const mac = macBytes(c.mac);
    return ip && mac ? [{ ip: ipToBytes(ip), mac, c }] : [];
  });
  w.arrayHeader(5).text(report.node).uint(report.epoch).uint(report.seq).uint(report.active).arrayHeader(entries.length);
  for (const { ip, mac, c } of entries) w.arrayHeader(4).str(ip).str(mac).uint(c.firstSeen).uint(c.lastSeen);
}

export function readConflictReport(value: MsgValue): ConflictReport {
  const f = RecordFields.of(value, 'conflict report', 5);
  const node = f.text(RECORD_NODE_MAX_BYTES);
  const epoch = f.count();
  const seq = f.count();
  const active = f.count();
  const conflicts = f.list(CONFLICT_REPORT_MAX_ENTRIES).map((raw): ReportedConflict => {
    const e = RecordFields.of(raw, 'conflict', 4);
    const ip = formatIP(ipFromBytes(e.bytes([4, 16])));
    const mac = [...e.bytes([MAC_BYTES])].map((b) => b.toString(16).padStart(2, '0')).join(':');
    return { ip, mac, firstSeen: e.count(), lastSeen: e.count() };
  });
  return { node, epoch, seq, active: Math.max(active, conflicts.length), conflicts };
}

function macBytes(mac: string): Uint8Array | undefined {
  const parts = mac.split(':').map((h) => Number.parseInt(h, 16));
  return parts.length === MAC_BYTES && parts.every((b) => b >= 0 && b <= 255) ? Uint8Array.from(parts) : undefined;
}
