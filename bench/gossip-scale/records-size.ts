/**
 * mlb's own records at a given number of services, encoded by the real encoder (records-codec.ts, the "mlbr"
 * envelope): the allocation table (one entry per service, broadcast by the allocator on every change and relayed
 * by each node that merges a newer one) and one node's health report (one result per health-checked service).
 * Pure: the bench compares their sizes with one packet's budget.
 */
import { makeAllocationTable, type AllocationEntry } from '../../src/daemon/allocation/allocation-table';
import { encodeRecords } from '../../src/daemon/records/records-codec';
import { ENVELOPE_RECORDS_VERSION } from '../../src/daemon/records/records-envelope';
import { GossipRecordKind, type GossipRecord } from '../../src/daemon/records/record-kinds';

/** A realistic service key ("namespace/name", as the model names services) and its address in 198.18.0.0/15. */
function serviceKey(i: number): string {
  return `default/service-${String(i).padStart(5, '0')}`;
}

function serviceIp(i: number): string {
  return `198.${18 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}`;
}

/** Writers of a table: the allocator wrote most entries, its predecessors a few. */
const WRITERS = ['node-0000', 'node-0001', 'node-0002'];
const WRITTEN_AT = Date.UTC(2026, 0, 1);

export function allocationTableRecord(services: number): GossipRecord {
  const entries: [string, AllocationEntry][] = [];
  for (let i = 0; i < services; i++) {
    entries.push([
      serviceKey(i),
      { ips: [serviceIp(i)], version: i + 1, writer: WRITERS[i % WRITERS.length]!, at: WRITTEN_AT, released: false },
    ]);
  }
  return { kind: GossipRecordKind.allocationTable, value: makeAllocationTable(services, WRITERS[0]!, entries) };
}

export function healthReportRecord(services: number): GossipRecord {
  const results: Record<string, boolean> = {};
  for (let i = 0; i < services; i++) results[serviceKey(i)] = i % 97 !== 0;
  return { kind: GossipRecordKind.healthReport, value: { node: WRITERS[0]!, epoch: WRITTEN_AT, seq: 1, results } };
}

/** The bytes a broadcast of `record` puts on the wire: the payload of one user message. */
export function encodedRecordsBytes(record: GossipRecord): Uint8Array {
  return encodeRecords([record], ENVELOPE_RECORDS_VERSION);
}
