/**
 * An IPv6 header (RFC 8200 section 3) carrying an ICMPv6 message (RFC 4443 section 2.1) directly, the only shape
 * Neighbor Discovery uses (RFC 6980 forbids fragmenting it; mlb refuses any extension header).
 *
 *    0                   1                   2                   3
 *    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |Version| Traffic Class |           Flow Label                  |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |         Payload Length        |  Next Header  |   Hop Limit   |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |                   Source Address (16 octets)                  |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |                Destination Address (16 octets)                |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |     Type      |     Code      |          Checksum             |   <- ICMPv6, RFC 4443 2.1
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |                         Message Body                          |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 * The checksum covers a pseudo-header (RFC 8200 section 8.1) followed by the ICMPv6 message:
 *   Source (16) | Destination (16) | Upper-Layer Packet Length (4) | zero (3) | Next Header = 58 (1)
 *
 * Payload Length is distrusted: more than the frame holds is `truncated`; fewer means the rest is link padding.
 */
import type { IP } from '../../ip';
import { addWords, foldSum } from './checksum';
import { decoded, dropped, type Decoded } from './drop-reasons';

const IPV6_VERSION = 6;
const IPV6_HEADER_BYTES = 40;
/** IANA protocol number of ICMPv6 (RFC 4443). */
export const NEXT_HEADER_ICMPV6 = 58;
/** Type, code and checksum. */
export const ICMPV6_HEADER_BYTES = 4;
const IPV6_ADDRESS_BYTES = 16;

const OFFSET_PAYLOAD_LENGTH = 4;
const OFFSET_NEXT_HEADER = 6;
const OFFSET_HOP_LIMIT = 7;
const OFFSET_SOURCE = 8;
const OFFSET_DESTINATION = 24;
const OFFSET_ICMP_CHECKSUM = 2;

export interface Icmpv6Packet {
  readonly source: IP;
  readonly destination: IP;
  readonly hopLimit: number;
  readonly type: number;
  readonly code: number;
  /** The ICMPv6 message after type, code and checksum; a view into the decoded bytes, cut at Payload Length. */
  readonly body: Uint8Array;
}

/** Reads 16 octets as an IPv6 address, never mapping ::ffff:a.b.c.d to IPv4: on the wire it is an IPv6 address. */
export function ipv6At(bytes: Uint8Array, offset: number): IP {
  const view = new DataView(bytes.buffer, bytes.byteOffset + offset, IPV6_ADDRESS_BYTES);
  return { family: 6, value: (view.getBigUint64(0) << 64n) | view.getBigUint64(8) };
}

export function writeIpv6(out: Uint8Array, offset: number, ip: IP): void {
  if (ip.family !== 6) throw new RangeError('an IPv6 header carries IPv6 addresses only');
  const view = new DataView(out.buffer, out.byteOffset + offset, IPV6_ADDRESS_BYTES);
  view.setBigUint64(0, ip.value >> 64n);
  view.setBigUint64(8, ip.value & 0xffff_ffff_ffff_ffffn);
}

/** The one's complement sum of the pseudo-header (RFC 8200 8.1), unfolded, for ICMPv6 of `length` octets. */
function pseudoHeaderSum(addresses: Uint8Array, length: number): number {
  // addresses = source and destination, 32 octets; the length is a 32-bit field, then 3 zero octets and 58.
  return addWords(0, addresses) + Math.floor(length / 0x10000) + (length & 0xffff) + NEXT_HEADER_ICMPV6;
}

/**
 * Decodes an IPv6 packet that must carry ICMPv6 with a valid checksum. Hop limit is reported, not judged:
 * Neighbor Discovery's 255 rule belongs to the NDP layer.
 */
export function decodeIcmpv6(bytes: Uint8Array): Decoded<Icmpv6Packet> {
  if (bytes.length < IPV6_HEADER_BYTES) return dropped('truncated', `IPv6 packet of ${bytes.length} bytes`);
  const version = (bytes[0] as number) >> 4;
  if (version !== IPV6_VERSION) return dropped('badIpVersion', `version ${version}`);
  const nextHeader = bytes[OFFSET_NEXT_HEADER] as number;
  if (nextHeader !== NEXT_HEADER_ICMPV6) return dropped('notIcmpv6', `next header ${nextHeader}`);
  const payloadLength = ((bytes[OFFSET_PAYLOAD_LENGTH] as number) << 8) | (bytes[OFFSET_PAYLOAD_LENGTH + 1] as number);
  if (payloadLength > bytes.length - IPV6_HEADER_BYTES) {
    return dropped('truncated', `payload length ${payloadLength} > ${bytes.length - IPV6_HEADER_BYTES} available`);
  }
  if (payloadLength < ICMPV6_HEADER_BYTES) return dropped('truncated', `ICMPv6 message of ${payloadLength} bytes`);
  const message = bytes.subarray(IPV6_HEADER_BYTES, IPV6_HEADER_BYTES + payloadLength);
  const sum = pseudoHeaderSum(bytes.subarray(OFFSET_SOURCE, IPV6_HEADER_BYTES), payloadLength);
  if ((~foldSum(addWords(sum, message)) & 0xffff) !== 0) return dropped('badChecksum');
  return decoded({
    source: ipv6At(bytes, OFFSET_SOURCE),
    destination: ipv6At(bytes, OFFSET_DESTINATION),
    hopLimit: bytes[OFFSET_HOP_LIMIT] as number,
    type: message[0] as number,
    code: message[1] as number,
    body: message.subarray(ICMPV6_HEADER_BYTES),
  });
}

/** The IPv6 packet (header + ICMPv6 with its checksum computed); traffic class and flow label are zero. */
export function encodeIcmpv6(packet: Icmpv6Packet): Uint8Array {
  const payloadLength = ICMPV6_HEADER_BYTES + packet.body.length;
  if (payloadLength > 0xffff) throw new RangeError('ICMPv6 message too long for one IPv6 packet without jumbograms');
  const out = new Uint8Array(IPV6_HEADER_BYTES + payloadLength);
  const view = new DataView(out.buffer);
  out[0] = IPV6_VERSION << 4;
  view.setUint16(OFFSET_PAYLOAD_LENGTH, payloadLength);
  out[OFFSET_NEXT_HEADER] = NEXT_HEADER_ICMPV6;
  out[OFFSET_HOP_LIMIT] = packet.hopLimit;
  writeIpv6(out, OFFSET_SOURCE, packet.source);
  writeIpv6(out, OFFSET_DESTINATION, packet.destination);
  out[IPV6_HEADER_BYTES] = packet.type;
  out[IPV6_HEADER_BYTES + 1] = packet.code;
  out.set(packet.body, IPV6_HEADER_BYTES + ICMPV6_HEADER_BYTES);
  const message = out.subarray(IPV6_HEADER_BYTES);
  const sum = addWords(pseudoHeaderSum(out.subarray(OFFSET_SOURCE, IPV6_HEADER_BYTES), payloadLength), message);
  view.setUint16(IPV6_HEADER_BYTES + OFFSET_ICMP_CHECKSUM, ~foldSum(sum) & 0xffff);
  return out;
}
