/**
 * The one way mlb's records become bytes and back. Two forms travel during a rolling upgrade: the msgpack
 * envelope (records-envelope.ts, records version 2) and the v1 layout of older releases (legacy-records.ts).
 * Every node decodes both, told apart by the first byte; which one a node writes is the records version every
 * live member understands (records-protocol.ts, records-wire.ts). Pure.
 */
import { dropped, type Decoded } from '../../errors/decoded';
import { decodeLegacyRecords, encodeLegacyRecords, LEGACY_FIRST_BYTE } from './legacy-records';
import { RecordDropReason, type GossipRecord } from './record-kinds';
import { decodeRecordsEnvelope, encodeRecordsEnvelope, ENVELOPE_RECORDS_VERSION, RECORDS_ENVELOPE_FIRST_BYTE } from './records-envelope';
import type { ReceivedRecords } from './received-records';

/**
 * The largest payload of records accepted, checked before anything in it is read. memberlist bounds a push/pull's
 * user state only by its stream limits; this keeps one confused peer from making every node hold megabytes. 1 MiB
 * holds an allocation table of about 20,000 services (v1 layout) beside every member's health report.
 */
export const RECORDS_MAX_BYTES = 1 << 20;

/** `records` in the form of records version `version` (the version every live member understands). */
export function encodeRecords(records: readonly GossipRecord[], version: number): Uint8Array {
  return version >= ENVELOPE_RECORDS_VERSION ? encodeRecordsEnvelope(records) : encodeLegacyRecords(records);
}

/** Whichever form `bytes` are in: the records, each damaged one dropped and named, or why all were dropped. */
export function decodeRecords(bytes: Uint8Array): Decoded<ReceivedRecords, RecordDropReason> {
  if (bytes.length > RECORDS_MAX_BYTES)
    return dropped(RecordDropReason.recordsTooLarge, `${bytes.length} bytes, at most ${RECORDS_MAX_BYTES}`);
  if (bytes[0] === RECORDS_ENVELOPE_FIRST_BYTE) return decodeRecordsEnvelope(bytes);
  if (bytes[0] === LEGACY_FIRST_BYTE) return decodeLegacyRecords(bytes);
  return dropped(RecordDropReason.notOurs, bytes.length === 0 ? 'empty' : `first byte 0x${(bytes[0] as number).toString(16)}`);
}
