/**
 * MP_REACH_NLRI (type 14) and MP_UNREACH_NLRI (type 15), RFC 4760 sections 3 and 4, for IPv4 and IPv6 unicast.
 *
 *   MP_REACH_NLRI                                      MP_UNREACH_NLRI
 *   +--------------------------------------------+    +--------------------------------------------+
 *   | Address Family Identifier (2 octets)       |    | Address Family Identifier (2 octets)       |
 *   +--------------------------------------------+    +--------------------------------------------+
 *   | Subsequent Address Family Identifier (1)   |    | Subsequent Address Family Identifier (1)   |
 *   +--------------------------------------------+    +--------------------------------------------+
 *   | Length of Next Hop Network Address (1)     |    | Withdrawn Routes (variable)                |
 *   +--------------------------------------------+    +--------------------------------------------+
 *   | Network Address of Next Hop (variable)     |
 *   +--------------------------------------------+
 *   | Reserved (1 octet)                         |
 *   +--------------------------------------------+
 *   | Network Layer Reachability Information     |
 *   +--------------------------------------------+
 *
 * IPv6 next hops are 16 octets (global) or 32 (global then link-local, RFC 2545 section 3). IPv4 unicast carried
 * in MP_REACH has a 4-octet next hop, or 16/32 with an IPv6 one (RFC 8950). The prefixes use the NLRI encoding of
 * prefix-codec. Families other than IPv4/IPv6 unicast are not decoded: the caller keeps such an attribute raw.
 */
import { Afi, Safi, type PathAttributes } from '../bgp-messages';
import { ipFromBytes, ipToBytes, IPV4_BYTES, IPV6_BYTES, type IP, type IPFamily } from '../../../ip';
import { BgpEncodeError, BgpEncodeErrorCode } from './codec-errors';
import { ByteWriter, readUint } from './byte-writer';
import { decodePrefixes, encodePrefix } from './prefix-codec';

type MpReach = NonNullable<PathAttributes['mpReach']>;
type MpUnreach = NonNullable<PathAttributes['mpUnreach']>;

/** AFI (2) + SAFI (1) + next hop length (1) + Reserved (1), with an empty next hop. */
const MP_REACH_MIN_BYTES = 5;
/** AFI (2) + SAFI (1). */
const MP_UNREACH_MIN_BYTES = 3;
/** RFC 2545 section 3: global address, then link-local. */
const IPV6_GLOBAL_AND_LINK_LOCAL_BYTES = 2 * IPV6_BYTES;

export type MpDecoded<T> =
  | { readonly kind: 'decoded'; readonly value: T }
  /** A family mlb does not speak: keep the attribute raw, never an error. */
  | { readonly kind: 'unsupportedFamily'; readonly afi: number; readonly safi: number }
  | { readonly kind: 'malformed'; readonly reason: string };

/** The IP family (4 or 6) of a supported AFI/SAFI (unicast only), or undefined. */
export function ipFamilyOfAfiSafi(afi: number, safi: number): IPFamily | undefined {
  if (safi !== Safi.unicast) return undefined;
  return afi === Afi.ipv4 ? 4 : afi === Afi.ipv6 ? 6 : undefined;
}

/** Next hop lengths accepted per AFI (RFC 4760 3, RFC 2545 3, RFC 8950 3). */
function nextHopLengthOk(afi: number, length: number): boolean {
  if (length === IPV6_BYTES || length === IPV6_GLOBAL_AND_LINK_LOCAL_BYTES) return true;
  return afi === Afi.ipv4 && length === IPV4_BYTES;
}

export function decodeMpReach(value: Uint8Array): MpDecoded<MpReach> {
  if (value.length < MP_REACH_MIN_BYTES) return { kind: 'malformed', reason: `MP_REACH_NLRI of ${value.length} octets` };
  const afi = readUint(value, 0, 2);
  const safi = value[2] as number;
  const family = ipFamilyOfAfiSafi(afi, safi);
  if (family === undefined) return { kind: 'unsupportedFamily', afi, safi };
  const nextHopLength = value[3] as number;
  // RFC 7606 7.11: a next hop length inconsistent with the family makes the NLRI impossible to locate.
  if (!nextHopLengthOk(afi, nextHopLength)) return { kind: 'malformed', reason: `next hop length ${nextHopLength} for AFI ${afi}` };
  const reservedAt = 4 + nextHopLength;
  if (reservedAt >= value.length) return { kind: 'malformed', reason: `next hop of ${nextHopLength} octets overruns the attribute` };
  const nextHops: IP[] = [];
  const width = nextHopLength === IPV4_BYTES ? IPV4_BYTES : IPV6_BYTES;
  for (let o = 4; o < reservedAt; o += width) nextHops.push(ipFromBytes(value.subarray(o, o + width)));
  // The Reserved octet "MUST be ignored upon receipt" (RFC 4760 3).
  const nlri = decodePrefixes(value.subarray(reservedAt + 1), family);
  if (!nlri.ok) return { kind: 'malformed', reason: `NLRI: ${nlri.reason}` };
  return { kind: 'decoded', value: { afi, safi, nextHops, nlri: nlri.prefixes } };
}

export function decodeMpUnreach(value: Uint8Array): MpDecoded<MpUnreach> {
  if (value.length < MP_UNREACH_MIN_BYTES) return { kind: 'malformed', reason: `MP_UNREACH_NLRI of ${value.length} octets` };
  const afi = readUint(value, 0, 2);
  const safi = value[2] as number;
  const family = ipFamilyOfAfiSafi(afi, safi);
  if (family === undefined) return { kind: 'unsupportedFamily', afi, safi };
  const withdrawn = decodePrefixes(value.subarray(MP_UNREACH_MIN_BYTES), family);
  if (!withdrawn.ok) return { kind: 'malformed', reason: `withdrawn routes: ${withdrawn.reason}` };
  return { kind: 'decoded', value: { afi, safi, withdrawn: withdrawn.prefixes } };
}

function fieldError(reason: string): BgpEncodeError {
  return new BgpEncodeError(BgpEncodeErrorCode.invalidField, reason);
}

function familyOrThrow(afi: number, safi: number): IPFamily {
  const family = ipFamilyOfAfiSafi(afi, safi);
  if (family === undefined) throw fieldError(`AFI ${afi} SAFI ${safi} is not IPv4/IPv6 unicast`);
  return family;
}

/** An IPv4 address where 16 octets are needed is written IPv4-mapped (::ffff:a.b.c.d), as FRR does. */
function sixteenOctets(ip: IP): Uint8Array {
  if (ip.family === 6) return ipToBytes(ip);
  const bytes = new Uint8Array(IPV6_BYTES);
  bytes[10] = 0xff;
  bytes[11] = 0xff;
  bytes.set(ipToBytes(ip), 12);
  return bytes;
}

function encodeNextHops(writer: ByteWriter, afi: number, nextHops: readonly IP[]): void {
  const [first, second] = nextHops;
  if (first === undefined || nextHops.length > 2) throw fieldError(`MP_REACH_NLRI needs 1 or 2 next hops, not ${nextHops.length}`);
  if (afi === Afi.ipv4 && nextHops.length === 1 && first.family === 4) {
    writer.u8(IPV4_BYTES).bytes(ipToBytes(first));
    return;
  }
  const hops = second === undefined ? [first] : [first, second];
  writer.u8(hops.length * IPV6_BYTES);
  for (const hop of hops) writer.bytes(sixteenOctets(hop));
}

export function encodeMpReach(mpReach: MpReach): Uint8Array {
  const family = familyOrThrow(mpReach.afi, mpReach.safi);
  const writer = new ByteWriter();
  writer.u16(mpReach.afi).u8(mpReach.safi);
  encodeNextHops(writer, mpReach.afi, mpReach.nextHops);
  writer.u8(0); // Reserved: "MUST be set to 0" (RFC 4760 3).
  for (const prefix of mpReach.nlri) encodePrefix(writer, prefix, family);
  return writer.finish();
}

export function encodeMpUnreach(mpUnreach: MpUnreach): Uint8Array {
  const family = familyOrThrow(mpUnreach.afi, mpUnreach.safi);
  const writer = new ByteWriter();
  writer.u16(mpUnreach.afi).u8(mpUnreach.safi);
  for (const prefix of mpUnreach.withdrawn) encodePrefix(writer, prefix, family);
  return writer.finish();
}
