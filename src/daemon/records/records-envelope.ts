/**
 * mlb's records on the wire from records version 2 on (records-protocol.ts): one msgpack value, written by the
 * gossip codec's own msgpack writer,
 *   [ "mlbr", records version, [ [kind, body], ... ] ]
 * each body an array of fields (record-fields.ts) laid out by its kind's *-body.ts. One layout for every kind:
 * no per-kind magic, version or length prefix (msgpack delimits every value), and a field appended by a later
 * release is ignored by an older decoder. Pure.
 *
 * Memory is bounded before any size inside is trusted: the caller refuses payloads over RECORDS_MAX_BYTES
 * (records-codec.ts), and the msgpack reader refuses a container whose count could not fit the bytes that remain
 * or exceeds MSGPACK_MAX_CONTAINER_ENTRIES, and nesting beyond MSGPACK_MAX_DEPTH, before allocating it.
 */
import { readValue, type MsgValue } from '../../gossip/codec/msgpack-reader';
import { MsgpackWriter } from '../../gossip/codec/msgpack-writer';
import { decoded, dropped, type Decoded } from '../../errors/decoded';
import { readAllocationTable, writeAllocationTable } from './allocation-table-body';
import { readConfigFacts, writeConfigFacts } from './config-facts-body';
import { readConflictReport, writeConflictReport } from './conflict-report-body';
import { readDrainRequest, writeDrainRequest } from './drain-request-body';
import { readHealthDetails, writeHealthDetails } from './health-details-body';
import { readHealthReport, writeHealthReport } from './health-report-body';
import { BAD_RECORD_REASON, GossipRecordKind, KNOWN_RECORD_KINDS, RecordDropReason, type GossipRecord } from './record-kinds';
import type { ReceivedRecords } from './received-records';

const RECORDS_MAGIC = 'mlbr';
const RECORDS_MAGIC_BYTES = new TextEncoder().encode(RECORDS_MAGIC);
/** The first byte of every envelope: a msgpack array of three (fixarray 0x93), never the v1 layout's "m". */
export const RECORDS_ENVELOPE_FIRST_BYTE = 0x93;
/** Records in one payload: a push/pull carries one per member and kind; 65,536 is the reader's container limit. */
const RECORDS_MAX_PER_PAYLOAD = 65_536;
/** The records version whose layout this file writes (records-protocol.ts MLB_RECORDS_VERSION). */
export const ENVELOPE_RECORDS_VERSION = 2;

export function encodeRecordsEnvelope(records: readonly GossipRecord[]): Uint8Array {
  const w = new MsgpackWriter(256);
  w.arrayHeader(3).text(RECORDS_MAGIC).uint(ENVELOPE_RECORDS_VERSION).arrayHeader(records.length);
  for (const record of records) {
    w.arrayHeader(2).uint(record.kind);
    writeBody(w, record);
  }
  return w.bytes();
}

/** The bytes one record takes in the envelope: what the push/pull relay budgets of the parts count. */
export function encodedRecordBytes(record: GossipRecord): number {
  const w = new MsgpackWriter(64);
  writeBody(w, record);
  return w.length;
}

function writeBody(w: MsgpackWriter, record: GossipRecord): void {
  switch (record.kind) {
    case GossipRecordKind.healthReport:
      return writeHealthReport(w, record.value);
    case GossipRecordKind.allocationTable:
      return writeAllocationTable(w, record.value);
    case GossipRecordKind.configFacts:
      return writeConfigFacts(w, record.value);
    case GossipRecordKind.conflictReport:
      return writeConflictReport(w, record.value);
    case GossipRecordKind.drainRequest:
      return writeDrainRequest(w, record.value);
    case GossipRecordKind.healthDetails:
      return writeHealthDetails(w, record.value);
  }
}

/** Reads each kind's body; throws (BadRecordField) for a damaged one, which decodeRecordsEnvelope counts. */
const READERS: Readonly<Record<GossipRecordKind, (value: MsgValue) => GossipRecord['value']>> = {
  [GossipRecordKind.healthReport]: readHealthReport,
  [GossipRecordKind.allocationTable]: readAllocationTable,
  [GossipRecordKind.configFacts]: readConfigFacts,
  [GossipRecordKind.conflictReport]: readConflictReport,
  [GossipRecordKind.drainRequest]: readDrainRequest,
  [GossipRecordKind.healthDetails]: readHealthDetails,
};

/** The records, with each damaged or unknown one dropped and named; the whole payload dropped when not ours. */
export function decodeRecordsEnvelope(bytes: Uint8Array): Decoded<ReceivedRecords, RecordDropReason> {
  let value: MsgValue;
  try {
    const read = readValue(bytes);
    if (read.end !== bytes.length) return dropped(RecordDropReason.badEnvelope, `${bytes.length - read.end} bytes after the records`);
    value = read.value;
  } catch (error) {
    return dropped(RecordDropReason.badEnvelope, (error as Error).message);
  }
  if (!Array.isArray(value) || value.length < 3 || !isMagic(value[0]))
    return dropped(RecordDropReason.notOurs, 'not an mlb records envelope');
  const list = value[2];
  if (!Array.isArray(list) || list.length > RECORDS_MAX_PER_PAYLOAD) return dropped(RecordDropReason.badEnvelope, 'records is not a list');
  const records: GossipRecord[] = [];
  const drops: { reason: RecordDropReason; detail: string }[] = [];
  for (const entry of list) {
    const kind = Array.isArray(entry) && entry.length >= 2 ? entry[0] : undefined;
    if (typeof kind !== 'number') {
      drops.push({ reason: RecordDropReason.badEnvelope, detail: 'a record is not [kind, body]' });
      continue;
    }
    if (!KNOWN_RECORD_KINDS.has(kind)) {
      drops.push({ reason: RecordDropReason.unknownKind, detail: `kind ${kind}` });
      continue;
    }
    const known = kind as GossipRecordKind;
    try {
      records.push({ kind: known, value: READERS[known]((entry as MsgValue[])[1] as MsgValue) } as GossipRecord);
    } catch (error) {
      drops.push({ reason: BAD_RECORD_REASON[known], detail: (error as Error).message });
    }
  }
  return decoded({ records, drops });
}

function isMagic(v: MsgValue | undefined): boolean {
  return v instanceof Uint8Array && v.length === RECORDS_MAGIC_BYTES.length && RECORDS_MAGIC_BYTES.every((b, i) => v[i] === b);
}
