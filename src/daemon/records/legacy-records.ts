/**
 * mlb's records as releases before records version 2 write and read them (records-protocol.ts), kept so a
 * cluster mixing them with this release keeps exchanging records: this release reads this form from anyone,
 * and writes it while any live member advertises a records version below 2. Pure.
 *
 * Layout: "mlbg" (4 bytes), layout version 1 (u8), then records of [kind u8][length u32 big-endian][bytes], each
 * record's bytes in its kind's own hand-made layout (health-report.ts, allocation-table-codec.ts (JSON),
 * config-facts-codec.ts, conflict-report.ts, drain-request-codec.ts, health-details.ts). Those six codecs stay
 * for this form only; a release that no longer meets a node older than version 2 can delete this file and them.
 */
import { decoded, dropped, type Decoded } from '../../errors/decoded';
import { decodeAllocationTable, encodeAllocationTable } from '../allocation/allocation-table-codec';
import { decodeConfigFacts, encodeConfigFacts } from '../config-facts/config-facts-codec';
import { decodeHealthDetails, encodeHealthDetails } from '../health/health-details';
import { decodeHealthReport, encodeHealthReport } from '../health/health-report';
import { decodeDrainRequest, encodeDrainRequest } from '../remote-drain/drain-request-codec';
import { decodeConflictReport, encodeConflictReport } from '../self-check/conflict-report';
import { BAD_RECORD_REASON, GossipRecordKind, KNOWN_RECORD_KINDS, RecordDropReason, type GossipRecord } from './record-kinds';
import type { ReceivedRecords } from './received-records';

const LEGACY_MAGIC = Uint8Array.of(0x6d, 0x6c, 0x62, 0x67); // "mlbg"
/** The layout's own version: older decoders refuse any other, so it stays 1 (records-protocol.ts). */
const LEGACY_LAYOUT_VERSION = 1;
const HEADER_BYTES = LEGACY_MAGIC.length + 1;
const RECORD_HEADER_BYTES = 5;

/** The first byte of the layout ("m"), which a msgpack envelope never starts with. */
export const LEGACY_FIRST_BYTE = 0x6d;

/** Records whose kind's v1 codec refuses them (a drain request with a node name over 255 bytes) are left out. */
export function encodeLegacyRecords(records: readonly GossipRecord[]): Uint8Array {
  const parts = records.flatMap((r) => {
    const bytes = legacyBytes(r);
    return bytes ? [{ kind: r.kind, bytes }] : [];
  });
  const out = new Uint8Array(HEADER_BYTES + parts.reduce((n, p) => n + RECORD_HEADER_BYTES + p.bytes.length, 0));
  out.set(LEGACY_MAGIC, 0);
  out[LEGACY_MAGIC.length] = LEGACY_LAYOUT_VERSION;
  const view = new DataView(out.buffer);
  let offset = HEADER_BYTES;
  for (const part of parts) {
    out[offset] = part.kind;
    view.setUint32(offset + 1, part.bytes.length);
    out.set(part.bytes, offset + RECORD_HEADER_BYTES);
    offset += RECORD_HEADER_BYTES + part.bytes.length;
  }
  return out;
}

function legacyBytes(record: GossipRecord): Uint8Array | undefined {
  switch (record.kind) {
    case GossipRecordKind.healthReport:
      return encodeHealthReport(record.value);
    case GossipRecordKind.allocationTable:
      return encodeAllocationTable(record.value);
    case GossipRecordKind.configFacts:
      return encodeConfigFacts(record.value);
    case GossipRecordKind.conflictReport:
      return encodeConflictReport(record.value);
    case GossipRecordKind.drainRequest:
      return encodeDrainRequest(record.value);
    case GossipRecordKind.healthDetails:
      return encodeHealthDetails(record.value);
  }
}

const LEGACY_DECODERS: Readonly<Record<GossipRecordKind, (bytes: Uint8Array) => GossipRecord['value'] | undefined>> = {
  [GossipRecordKind.healthReport]: decodeHealthReport,
  [GossipRecordKind.allocationTable]: decodeAllocationTable,
  [GossipRecordKind.configFacts]: decodeConfigFacts,
  [GossipRecordKind.conflictReport]: decodeConflictReport,
  [GossipRecordKind.drainRequest]: decodeDrainRequest,
  [GossipRecordKind.healthDetails]: decodeHealthDetails,
};

export function decodeLegacyRecords(bytes: Uint8Array): Decoded<ReceivedRecords, RecordDropReason> {
  if (bytes.length < HEADER_BYTES || !LEGACY_MAGIC.every((b, i) => bytes[i] === b)) return dropped(RecordDropReason.notOurs, 'no "mlbg"');
  if (bytes[LEGACY_MAGIC.length] !== LEGACY_LAYOUT_VERSION)
    return dropped(RecordDropReason.notOurs, `layout ${bytes[LEGACY_MAGIC.length]}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const records: GossipRecord[] = [];
  const drops: { reason: RecordDropReason; detail: string }[] = [];
  let offset = HEADER_BYTES;
  while (offset < bytes.length) {
    if (offset + RECORD_HEADER_BYTES > bytes.length) return dropped(RecordDropReason.badEnvelope, 'a record header is cut short');
    const kind = bytes[offset] as number;
    const length = view.getUint32(offset + 1);
    const start = offset + RECORD_HEADER_BYTES;
    if (start + length > bytes.length) return dropped(RecordDropReason.badEnvelope, `a record of ${length} bytes overruns the payload`);
    offset = start + length;
    if (!KNOWN_RECORD_KINDS.has(kind)) {
      drops.push({ reason: RecordDropReason.unknownKind, detail: `kind ${kind}` });
      continue;
    }
    const known = kind as GossipRecordKind;
    const value = LEGACY_DECODERS[known](bytes.subarray(start, offset));
    if (value === undefined) drops.push({ reason: BAD_RECORD_REASON[known], detail: 'refused by its v1 decoder' });
    else records.push({ kind: known, value } as GossipRecord);
  }
  return decoded({ records, drops });
}
