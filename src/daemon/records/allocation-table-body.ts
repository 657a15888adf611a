/**
 * The allocation table (allocation/allocation-table.ts) as a record body:
 *   [version, allocator, [writer...], [[service key, [ip bytes...], version, writer index, at, flags?]...]]
 * IPs travel as their 4 or 16 bytes (the v1 layout's canonical text took up to 39), writers are named once, and
 * the flags field (1 released, 2 restored) is left out when none is set. The received table is checked by the
 * same rules as allocations.json (allocation-table-codec.ts allocationTableFromJSON: a service appears once, no
 * live entry is newer than the table...), so the wire and the file can never disagree on what is valid. Pure.
 */
import { compareStrings } from '../../allocator';
import { formatIP, ipFromBytes, ipToBytes, parseIP } from '../../ip';
import { MsgpackWriter } from '../../gossip/codec/msgpack-writer';
import type { MsgValue } from '../../gossip/codec/msgpack-reader';
import type { AllocationTable } from '../allocation/allocation-table';
import { AllocationTableError, allocationTableFromJSON, MAX_ALLOCATION_TABLE_BYTES } from '../allocation/allocation-table-codec';
import { RECORD_NODE_MAX_BYTES, RECORD_SERVICE_KEY_MAX_BYTES } from './health-report-body';
import { BadRecordField, bytesOf, countOf, RecordFields, textOf } from './record-fields';

/**
 * Services one table may hold: the reader's container limit (MSGPACK_MAX_CONTAINER_ENTRIES); the 1 MiB records
 * limit (records-envelope.ts) is reached first, at about 25,000 services of 20-character keys.
 */
const ALLOCATION_TABLE_MAX_SERVICES = 65_536;
/** An entry names its writer by index: at most one writer per service. */
const ALLOCATION_TABLE_MAX_WRITERS = ALLOCATION_TABLE_MAX_SERVICES;
/** IPs per entry: MAX_ADDRESSES_PER_SERVICE is 2 (one per family); the decoder of the table checks it exactly. */
const ENTRY_MAX_IPS = 16;
const RELEASED = 1;
const RESTORED = 2;

/**
 * Bodies already written, by table: a table is immutable, and each version goes out at least twice (its broadcast
 * and the push/pull state), some 40 ms each at 10,000 services.
 */
const writtenBodies = new WeakMap<AllocationTable, Uint8Array>();

/** Throws AllocationTableError when the table would not fit MAX_ALLOCATION_TABLE_BYTES (no peer would take it). */
export function writeAllocationTable(w: MsgpackWriter, table: AllocationTable): void {
  let body = writtenBodies.get(table);
  if (body === undefined) {
    const own = new MsgpackWriter(64 * 1024);
    writeTableBody(own, table);
    body = own.bytes();
    writtenBodies.set(table, body);
  }
  w.raw(body);
}

function writeTableBody(w: MsgpackWriter, table: AllocationTable): void {
  const start = w.length;
  const writers = [...new Set([...table.entries.values()].map((e) => e.writer))].sort(compareStrings);
  const index = new Map(writers.map((name, i) => [name, i]));
  const entries = [...table.entries.entries()].sort(([a], [b]) => compareStrings(a, b));
  w.arrayHeader(4).uint(table.version).text(table.allocator).arrayHeader(writers.length);
  for (const name of writers) w.text(name);
  w.arrayHeader(entries.length);
  for (const [key, e] of entries) {
    const flags = (e.released ? RELEASED : 0) | (e.restored ? RESTORED : 0);
    w.arrayHeader(flags === 0 ? 5 : 6)
      .text(key)
      .arrayHeader(e.ips.length);
    for (const ip of e.ips) w.str(ipBytes(ip));
    w.uint(e.version)
      .uint(index.get(e.writer) as number)
      .uint(e.at);
    if (flags !== 0) w.uint(flags);
  }
  const size = w.length - start;
  if (size > MAX_ALLOCATION_TABLE_BYTES) {
    throw new AllocationTableError(
      'allocationTableTooLarge',
      `the allocation table is ${size} bytes with ${table.entries.size} entries; at most ${MAX_ALLOCATION_TABLE_BYTES} bytes travel in gossip`,
    );
  }
}

export function readAllocationTable(value: MsgValue): AllocationTable {
  const f = RecordFields.of(value, 'allocation table', 4);
  const version = f.count();
  const allocator = f.text(RECORD_NODE_MAX_BYTES, true);
  const writers = f.list(ALLOCATION_TABLE_MAX_WRITERS).map((w) => textOf(w, 'allocation table writer', RECORD_NODE_MAX_BYTES));
  const entries = f.list(ALLOCATION_TABLE_MAX_SERVICES).map((raw) => {
    const e = RecordFields.of(raw, 'allocation table entry', 5);
    const key = e.text(RECORD_SERVICE_KEY_MAX_BYTES);
    const ips = e.list(ENTRY_MAX_IPS).map((ip) => ipText(ip));
    const fields = [key, ips, e.count(), e.count(), e.count()];
    const flags = e.optional();
    return flags === undefined ? fields : [...fields, countOf(flags, `allocation table entry ${key} flags`)];
  });
  // The one set of rules for a table, whether it came from a peer or from allocations.json.
  const checked = allocationTableFromJSON({ format: 1, version, allocator, writers, entries });
  if (!checked.ok) throw new BadRecordField(`allocation table: ${checked.detail}`);
  return checked.table;
}

function ipBytes(text: string): Uint8Array {
  const ip = parseIP(text);
  // The table holds canonical text only (the election hashes it); anything else is a bug upstream.
  if (ip === undefined || formatIP(ip) !== text) throw new AllocationTableError('allocationTableBadIP', `"${text}" is not a canonical IP`);
  return ipToBytes(ip);
}

function ipText(value: MsgValue): string {
  const bytes = bytesOf(value, 'allocation table IP', [4, 16]);
  const ip = ipFromBytes(bytes);
  // 16 bytes holding an IPv4-mapped address would come back as IPv4 text the sender never wrote.
  if (bytes.length === 16 && ip.family === 4) throw new BadRecordField('allocation table IP: an IPv4-mapped IPv6 address');
  return formatIP(ip);
}
