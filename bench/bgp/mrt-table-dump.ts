/**
 * Writes an MRT TABLE_DUMP_V2 file (RFC 6396) of IPv4 host routes, so GoBGP can load thousands of /32s in one
 * `gobgp mrt inject global` instead of one CLI process per route (10,000 of those would take minutes and
 * measure the CLI, not BGP). One peer entry, one RIB entry per prefix, each with ORIGIN IGP, an empty AS_PATH
 * (a locally originated route, as mlb's are: GoBGP prepends its AS towards eBGP peers), NEXT_HOP and optional
 * COMMUNITIES. Pure encoding; the caller writes the bytes.
 */

/** RFC 6396 section 4: MRT type 13, subtypes 1 (PEER_INDEX_TABLE) and 2 (RIB_IPV4_UNICAST). */
const MRT_TABLE_DUMP_V2 = 13;
const SUBTYPE_PEER_INDEX_TABLE = 1;
const SUBTYPE_RIB_IPV4_UNICAST = 2;
/** Peer type bit 1 (0x02): the peer's AS is 4 octets (section 4.3.1); bit 0 clear: IPv4 address. */
const PEER_TYPE_AS4_IPV4 = 0x02;
/** Path attribute flags and type codes (RFC 4271 section 4.3, RFC 1997). */
const FLAG_TRANSITIVE = 0x40;
const FLAG_OPTIONAL_TRANSITIVE = 0xc0;
const ATTR_ORIGIN = 1;
const ATTR_AS_PATH = 2;
const ATTR_NEXT_HOP = 3;
const ATTR_COMMUNITIES = 8;
const ORIGIN_IGP = 0;

export interface HostRoutesDump {
  /** The /32s, e.g. from hostRoutes(). */
  readonly prefixes: readonly string[];
  readonly nextHop: string;
  /** The peer the routes are "learnt from" in the dump; GoBGP injects them as its own. */
  readonly peerAddress: string;
  readonly peerAs: number;
  /** RFC 1997 communities as "asn:value". */
  readonly communities?: readonly string[];
  /** Seconds since the epoch written in the headers; fixed by the caller for reproducible files. */
  readonly timestamp: number;
}

function ipv4Bytes(address: string): number[] {
  const parts = address.split('.').map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255))
    throw new RangeError(`not an IPv4 address: ${address}`);
  return parts;
}

function u16(n: number): number[] {
  return [(n >>> 8) & 0xff, n & 0xff];
}

function u32(n: number): number[] {
  return [(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
}

function mrtRecord(timestamp: number, subtype: number, body: readonly number[]): number[] {
  return [...u32(timestamp), ...u16(MRT_TABLE_DUMP_V2), ...u16(subtype), ...u32(body.length), ...body];
}

function peerIndexTable(dump: HostRoutesDump): number[] {
  const id = ipv4Bytes(dump.peerAddress);
  // Collector BGP ID, view name length 0, one peer: type, BGP ID, address, 4-octet AS.
  return [...id, ...u16(0), ...u16(1), PEER_TYPE_AS4_IPV4, ...id, ...id, ...u32(dump.peerAs)];
}

/** The attributes every RIB entry carries; AS_PATH is empty (RFC 6396 4.3.4 would want 4-octet ASNs in it). */
export function ribAttributes(dump: Pick<HostRoutesDump, 'nextHop' | 'communities'>): number[] {
  const communities = (dump.communities ?? []).flatMap((c) => {
    const [high, low] = c.split(':').map(Number);
    if (high === undefined || low === undefined || !(high >= 0 && high < 65536 && low >= 0 && low < 65536))
      throw new RangeError(`not a community: ${c}`);
    return [...u16(high), ...u16(low)];
  });
  return [
    FLAG_TRANSITIVE,
    ATTR_ORIGIN,
    1,
    ORIGIN_IGP,
    FLAG_TRANSITIVE,
    ATTR_AS_PATH,
    0,
    FLAG_TRANSITIVE,
    ATTR_NEXT_HOP,
    4,
    ...ipv4Bytes(dump.nextHop),
    ...(communities.length > 0 ? [FLAG_OPTIONAL_TRANSITIVE, ATTR_COMMUNITIES, communities.length, ...communities] : []),
  ];
}

function ribEntry(sequence: number, prefix: string, attributes: readonly number[], timestamp: number): number[] {
  const [address, lengthText] = prefix.split('/');
  const length = Number(lengthText ?? 32);
  const bytes = ipv4Bytes(address ?? '').slice(0, Math.ceil(length / 8));
  // Sequence, prefix length, prefix bytes, one entry: peer index 0, originated time, attributes.
  return [...u32(sequence), length, ...bytes, ...u16(1), ...u16(0), ...u32(timestamp), ...u16(attributes.length), ...attributes];
}

export function encodeHostRoutesDump(dump: HostRoutesDump): Buffer {
  const attributes = ribAttributes(dump);
  const records: number[][] = [mrtRecord(dump.timestamp, SUBTYPE_PEER_INDEX_TABLE, peerIndexTable(dump))];
  dump.prefixes.forEach((prefix, i) =>
    records.push(mrtRecord(dump.timestamp, SUBTYPE_RIB_IPV4_UNICAST, ribEntry(i, prefix, attributes, dump.timestamp))),
  );
  return Buffer.concat(records.map((r) => Buffer.from(r)));
}

/** `count` consecutive IPv4 /32s from `first` (e.g. 10.214.0.0 gives 10.214.0.0/32, 10.214.0.1/32, ...). */
export function hostRoutes(count: number, first: string): string[] {
  const start = ipv4Bytes(first).reduce((n, b) => n * 256 + b, 0);
  if (start + count > 2 ** 32) throw new RangeError(`${count} addresses from ${first} overflow IPv4`);
  return Array.from({ length: count }, (_, i) => {
    const n = start + i;
    return `${Math.floor(n / 2 ** 24) % 256}.${Math.floor(n / 2 ** 16) % 256}.${Math.floor(n / 256) % 256}.${n % 256}/32`;
  });
}
