/**
 * What mlb daemons tell each other beyond membership: their health reports, the allocation table, the facts
 * of their configuration files (config-facts/config-facts-codec.ts) and the split-brain conflicts each observes
 * (self-check/conflict-report.ts) and drain requests (remote-drain/drain-request-codec.ts), carried in
 * memberlist user messages (broadcasts, for changes) and in push/pull user state (anti-entropy, for whatever a
 * broadcast missed). Pure.
 *
 * Layout: "mlbg" (4 bytes), version (u8), then records of [kind u8][length u32 big-endian][bytes]. MetalLB
 * speakers send no user data and ignore ours; anything without the magic, or damaged, decodes to undefined and
 * is counted by the caller, never thrown.
 */
const GOSSIP_RECORDS_MAGIC = Uint8Array.of(0x6d, 0x6c, 0x62, 0x67); // "mlbg"
const GOSSIP_RECORDS_VERSION = 1;
/**
 * memberlist caps a push/pull user state only by its stream limits; a bounded payload keeps one confused peer
 * from making every node allocate megabytes. 1 MiB holds a table of ~20,000 services.
 */
const GOSSIP_RECORDS_MAX_BYTES = 1 << 20;

/** Append-only: a kind's number never changes meaning (older peers skip kinds they do not know). */
export const GossipRecordKind = {
  healthReport: 1,
  allocationTable: 2,
  configFacts: 3,
  conflictReport: 4,
  /** `mlb drain NODE` from any host, and the target's answer (remote-drain/). */
  drainRequest: 5,
  /** Why each failing check fails (health/health-details.ts), for other nodes' `mlb explain`. */
  healthDetails: 6,
} as const;
const KNOWN_KINDS: ReadonlySet<number> = new Set(Object.values(GossipRecordKind));
export type GossipRecordKind = (typeof GossipRecordKind)[keyof typeof GossipRecordKind];

export interface GossipRecord {
  readonly kind: GossipRecordKind;
  readonly bytes: Uint8Array;
}

const HEADER_BYTES = GOSSIP_RECORDS_MAGIC.length + 1;
const RECORD_HEADER_BYTES = 5;

export function encodeGossipRecords(records: readonly GossipRecord[]): Uint8Array {
  const size = HEADER_BYTES + records.reduce((n, r) => n + RECORD_HEADER_BYTES + r.bytes.length, 0);
  const out = new Uint8Array(size);
  out.set(GOSSIP_RECORDS_MAGIC, 0);
  out[GOSSIP_RECORDS_MAGIC.length] = GOSSIP_RECORDS_VERSION;
  const view = new DataView(out.buffer);
  let offset = HEADER_BYTES;
  for (const record of records) {
    out[offset] = record.kind;
    view.setUint32(offset + 1, record.bytes.length);
    out.set(record.bytes, offset + RECORD_HEADER_BYTES);
    offset += RECORD_HEADER_BYTES + record.bytes.length;
  }
  return out;
}

/** The records, or undefined for anything that is not ours or is damaged. Unknown kinds are skipped (newer peers). */
export function decodeGossipRecords(bytes: Uint8Array): GossipRecord[] | undefined {
  return decodeGossipRecordsCounted(bytes)?.records;
}

/**
 * The records and how many were of a kind this release does not know: a newer peer's, skipped and counted so an
 * operator can see a mixed cluster at work (records-protocol.ts), never an error.
 */
export function decodeGossipRecordsCounted(bytes: Uint8Array): { records: GossipRecord[]; unknownKinds: number } | undefined {
  if (bytes.length < HEADER_BYTES || bytes.length > GOSSIP_RECORDS_MAX_BYTES) return undefined;
  if (!GOSSIP_RECORDS_MAGIC.every((b, i) => bytes[i] === b)) return undefined;
  if (bytes[GOSSIP_RECORDS_MAGIC.length] !== GOSSIP_RECORDS_VERSION) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const records: GossipRecord[] = [];
  let unknownKinds = 0;
  let offset = HEADER_BYTES;
  while (offset < bytes.length) {
    if (offset + RECORD_HEADER_BYTES > bytes.length) return undefined;
    const kind = bytes[offset] as number;
    const length = view.getUint32(offset + 1);
    const start = offset + RECORD_HEADER_BYTES;
    if (start + length > bytes.length) return undefined;
    if (KNOWN_KINDS.has(kind)) {
      records.push({ kind: kind as GossipRecordKind, bytes: bytes.slice(start, start + length) });
    } else unknownKinds++;
    offset = start + length;
  }
  return { records, unknownKinds };
}
