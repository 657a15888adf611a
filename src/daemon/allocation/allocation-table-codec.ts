/**
 * The allocation table as bytes, for allocations.json under --state-dir and for gossip in the v1 layout
 * (records/legacy-records.ts; records version 2 sends records/allocation-table-body.ts, checked by the same
 * allocationTableFromJSON). Pure.
 *
 * UTF-8 JSON, because the same text is the state file an operator may read, and because a decoder of JSON
 * written by hand cannot overrun a buffer. Compact: an entry is an array, and writers are named once, so an
 * entry costs about 50 bytes plus its service key.
 *
 *   {"format":1,"version":12,"allocator":"node-b","writers":["node-a","node-b"],
 *    "entries":[["demo/web",["192.0.2.10"],9,0,1718000000000],      key, ips, version, writer index, at
 *               ["demo/old",["192.0.2.11"],12,1,1718000300000,1]]}   ... and flags: 1 released, 2 restored
 *
 * Everything read is distrusted: the size is checked before parsing, every field's type and range after, IPs
 * must be canonical text (the election hashes the text), a service appears once, and no live entry may be newer
 * than the table (whose (version, allocator) is the latest live write; a restored entry's stamp is another
 * life's, allocation-table.ts). Anything else decodes to a reason, never an exception.
 *
 * The flags field was "1 or absent" before restored entries existed; a node of that release refuses a table
 * holding a restored entry (badEntry) and keeps its own, which is the safe reading: it never takes a restored
 * entry for a live one.
 */
import { compareStrings, MAX_ADDRESSES_PER_SERVICE } from '../../allocator';
import { formatIP, parseIP } from '../../ip';
import { type AllocationEntry, type AllocationTable, makeAllocationTable } from './allocation-table';
import { CodedError } from '../../errors/coded-error';

/** Bumped when the layout changes; a node ignores a table of a format it does not know. */
export const ALLOCATION_TABLE_FORMAT = 1;

/**
 * The largest encoded table. It travels inside one gossip user-state payload, which the daemon caps at 1 MiB
 * together with the health reports (records/records-codec.ts RECORDS_MAX_BYTES); 896 KiB leaves them 128 KiB and
 * holds about 15,000 services with keys of 20 characters.
 */
export const MAX_ALLOCATION_TABLE_BYTES = 896 * 1024;

/** Kubernetes object names are DNS subdomains (253); node names too. */
const MAX_NAME_LENGTH = 253;
/** Namespace (a DNS label, 63) + "/" + name (253). */
const MAX_SERVICE_KEY_LENGTH = 63 + 1 + MAX_NAME_LENGTH;

export const AllocationTableDecodeFailure = {
  tooLarge: 'tooLarge',
  notUTF8: 'notUTF8',
  notJSON: 'notJSON',
  unknownFormat: 'unknownFormat',
  badHeader: 'badHeader',
  badEntry: 'badEntry',
  duplicateService: 'duplicateService',
  entryNewerThanTable: 'entryNewerThanTable',
} as const;
export type AllocationTableDecodeFailure = (typeof AllocationTableDecodeFailure)[keyof typeof AllocationTableDecodeFailure];

export type AllocationTableDecoding =
  | { readonly ok: true; readonly table: AllocationTable }
  | { readonly ok: false; readonly reason: AllocationTableDecodeFailure; readonly detail: string };

export class AllocationTableError extends CodedError<'allocationTableTooLarge' | 'allocationTableBadIP'> {}

/** The sixth field of an entry: a set of these bits, absent when none is set. */
const AllocationEntryFlag = { released: 1, restored: 2 } as const;
const KNOWN_FLAGS = AllocationEntryFlag.released | AllocationEntryFlag.restored;

type AllocationEntryJSON = [string, string[], number, number, number] | [string, string[], number, number, number, number];

interface AllocationTableJSON {
  format: number;
  version: number;
  allocator: string;
  writers: string[];
  entries: AllocationEntryJSON[];
}

/** The table as the JSON value both the wire and the state file carry. */
function allocationTableToJSON(table: AllocationTable): AllocationTableJSON {
  const writers = [...new Set([...table.entries.values()].map((e) => e.writer))].sort(compareStrings);
  const index = new Map(writers.map((w, i) => [w, i]));
  const entries = [...table.entries.entries()]
    .sort(([a], [b]) => compareStrings(a, b))
    .map(([key, e]): AllocationEntryJSON => {
      const base: [string, string[], number, number, number] = [key, [...e.ips], e.version, index.get(e.writer) as number, e.at];
      const flags = (e.released ? AllocationEntryFlag.released : 0) | (e.restored ? AllocationEntryFlag.restored : 0);
      return flags !== 0 ? [...base, flags] : base;
    });
  return { format: ALLOCATION_TABLE_FORMAT, version: table.version, allocator: table.allocator, writers, entries };
}

/**
 * Texts and bytes already made, by table: a table is immutable, and each version is encoded up to three times
 * (the broadcast, the push/pull state, allocations.json), about 75 ms each at 10,000 services.
 */
const encodedTexts = new WeakMap<AllocationTable, string>();
const encodedBytes = new WeakMap<AllocationTable, Uint8Array>();

/**
 * The JSON text: one entry per line, so the state file reads (and diffs) one service at a time. Throws
 * AllocationTableError when it would exceed MAX_ALLOCATION_TABLE_BYTES (no peer would accept it).
 */
export function allocationTableText(table: AllocationTable): string {
  let text = encodedTexts.get(table);
  if (text === undefined) {
    text = tableText(table);
    encodedTexts.set(table, text);
  }
  return text;
}

function tableText(table: AllocationTable): string {
  const json = allocationTableToJSON(table);
  const head = `{"format":${json.format},"version":${json.version},"allocator":${JSON.stringify(json.allocator)},"writers":${JSON.stringify(json.writers)},"entries":[`;
  const lines = json.entries.map((e) => JSON.stringify(e));
  const text = lines.length === 0 ? `${head}]}\n` : `${head}\n${lines.join(',\n')}\n]}\n`;
  const size = Buffer.byteLength(text, 'utf8');
  if (size > MAX_ALLOCATION_TABLE_BYTES) {
    throw new AllocationTableError(
      'allocationTableTooLarge',
      `the allocation table is ${size} bytes with ${table.entries.size} entries; at most ${MAX_ALLOCATION_TABLE_BYTES} bytes travel in gossip`,
    );
  }
  return text;
}

/** The UTF-8 of allocationTableText; the same bytes for every call on one table: callers copy, never write. */
export function encodeAllocationTable(table: AllocationTable): Uint8Array {
  let bytes = encodedBytes.get(table);
  if (bytes === undefined) {
    bytes = new TextEncoder().encode(allocationTableText(table));
    encodedBytes.set(table, bytes);
  }
  return bytes;
}

export function decodeAllocationTable(bytes: Uint8Array): AllocationTable | undefined {
  const decoded = readAllocationTable(bytes);
  return decoded.ok ? decoded.table : undefined;
}

/** decodeAllocationTable with the reason it refused, for counters and debug logs. */
export function readAllocationTable(bytes: Uint8Array): AllocationTableDecoding {
  if (bytes.length > MAX_ALLOCATION_TABLE_BYTES) {
    return fail('tooLarge', `${bytes.length} bytes, at most ${MAX_ALLOCATION_TABLE_BYTES}`);
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return fail('notUTF8', 'not UTF-8 text');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return fail('notJSON', (error as Error).message);
  }
  return allocationTableFromJSON(value);
}

/** A parsed JSON value checked field by field. */
export function allocationTableFromJSON(value: unknown): AllocationTableDecoding {
  if (!isRecord(value)) return fail('badHeader', 'not an object');
  if (value.format !== ALLOCATION_TABLE_FORMAT)
    return fail('unknownFormat', `format ${String(value.format)}, this node reads ${ALLOCATION_TABLE_FORMAT}`);
  const { version, allocator, writers, entries } = value;
  if (!isCount(version)) return fail('badHeader', 'version is not a non-negative integer');
  if (!isName(allocator, true)) return fail('badHeader', 'allocator is not a node name');
  if (!Array.isArray(writers) || !writers.every((w) => isName(w, false))) return fail('badHeader', 'writers is not a list of node names');
  if (!Array.isArray(entries)) return fail('badHeader', 'entries is not a list');

  const decoded = new Map<string, AllocationEntry>();
  for (const [i, raw] of entries.entries()) {
    const entry = readEntry(raw, writers as string[]);
    if (typeof entry === 'string') return fail('badEntry', `entry ${i}: ${entry}`);
    const [key, e] = entry;
    if (decoded.has(key)) return fail('duplicateService', `${key} appears twice`);
    if (!e.restored && (e.version > version || (e.version === version && compareStrings(e.writer, allocator as string) > 0))) {
      return fail(
        'entryNewerThanTable',
        `${key} was written at ${e.version} by ${e.writer}, after the table (${version} by ${String(allocator)})`,
      );
    }
    decoded.set(key, e);
  }
  return { ok: true, table: makeAllocationTable(version, allocator as string, decoded) };
}

function readEntry(raw: unknown, writers: readonly string[]): [string, AllocationEntry] | string {
  if (!Array.isArray(raw) || raw.length < 5 || raw.length > 6) return 'not an entry';
  const [key, ips, version, writer, at, flags] = raw as unknown[];
  if (!isServiceKey(key)) return 'not a "namespace/name" service key';
  if (!isCount(version)) return `${key}: version is not a non-negative integer`;
  if (!isCount(writer) || writer >= writers.length) return `${key}: writer is not an index into writers`;
  if (!isCount(at)) return `${key}: at is not a time`;
  if (raw.length === 6 && (!isCount(flags) || flags === 0 || (flags & ~KNOWN_FLAGS) !== 0)) {
    return `${key}: the sixth field must be flags ${AllocationEntryFlag.released} (released) and/or ${AllocationEntryFlag.restored} (restored)`;
  }
  const bits = raw.length === 6 ? (flags as number) : 0;
  const isReleased = (bits & AllocationEntryFlag.released) !== 0;
  const isRestored = (bits & AllocationEntryFlag.restored) !== 0;
  if (!Array.isArray(ips) || ips.length > MAX_ADDRESSES_PER_SERVICE || (!isReleased && ips.length === 0)) {
    return `${key}: ips must hold ${isReleased ? 0 : 1}-${MAX_ADDRESSES_PER_SERVICE} addresses`;
  }
  for (const ip of ips) {
    const parsed = typeof ip === 'string' ? parseIP(ip) : undefined;
    if (parsed === undefined || formatIP(parsed) !== ip) return `${key}: ${JSON.stringify(ip)} is not an IP in canonical form`;
  }
  const entry: AllocationEntry = { ips: ips as string[], version, writer: writers[writer] as string, at, released: isReleased };
  return [key, isRestored ? { ...entry, restored: true } : entry];
}

function fail(reason: AllocationTableDecodeFailure, detail: string): AllocationTableDecoding {
  return { ok: false, reason, detail };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

function isName(v: unknown, mayBeEmpty: boolean): v is string {
  return typeof v === 'string' && v.length <= MAX_NAME_LENGTH && (mayBeEmpty || v.length > 0);
}

function isServiceKey(v: unknown): v is string {
  if (typeof v !== 'string' || v.length > MAX_SERVICE_KEY_LENGTH) return false;
  const slash = v.indexOf('/');
  return slash > 0 && slash < v.length - 1 && v.indexOf('/', slash + 1) === -1;
}
