/**
 * Neighbor Solicitation and Neighbor Advertisement (RFC 4861 sections 4.3 and 4.4), the ICMPv6 body after type,
 * code and checksum (see ipv6-icmpv6.ts for those and the checksum).
 *
 * Neighbor Solicitation, type 135:
 *    0                   1                   2                   3
 *    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |     Type      |     Code      |          Checksum             |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |                           Reserved                            |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |                    Target Address (16 octets)                 |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |   Options ...  (source link-layer address)
 *   +-+-+-+-+-+-+-+-+-+-+-+-
 *
 * Neighbor Advertisement, type 136:
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |     Type      |     Code      |          Checksum             |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |R|S|O|                     Reserved                            |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |                    Target Address (16 octets)                 |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |   Options ...  (target link-layer address)
 *   +-+-+-+-+-+-+-+-+-+-+-+-
 *
 * Receive validation, RFC 4861 sections 7.1.1 and 7.1.2, in the order checked here: hop limit 255 (the packet
 * cannot have crossed a router), code 0, ICMP length >= 24 octets, target not multicast, options well formed.
 * The checksum has already been verified by decodeIcmpv6.
 */
import type { IP } from '../../ip';
import { decoded, dropped, type Decoded } from './drop-reasons';
import { encodeEthernet, EtherType } from './ethernet';
import { decodeIcmpv6, encodeIcmpv6, ICMPV6_HEADER_BYTES, ipv6At, writeIpv6, type Icmpv6Packet } from './ipv6-icmpv6';
import type { MacAddress } from './mac-address';
import { decodeNdpOptions, encodeNdpOptions, type NdpOption } from './ndp-options';

/** ICMPv6 types of Neighbor Discovery used here (RFC 4861 section 4). Append-only. */
export const NdpType = {
  neighborSolicitation: 135,
  neighborAdvertisement: 136,
} as const;

/** RFC 4861 7.1.1: a node sends ND with hop limit 255 and discards any other value on receipt. */
export const NDP_HOP_LIMIT = 255;
/** RFC 4861 7.1.1: ICMP length (derived from the IP length) is 24 or more octets: header 4 + 4 + target 16. */
const NDP_MIN_MESSAGE_BYTES = 24;
/** Reserved/flags word + target address: the body before options. */
const FIXED_BODY_BYTES = NDP_MIN_MESSAGE_BYTES - ICMPV6_HEADER_BYTES;
const OFFSET_TARGET = 4;

const FLAG_ROUTER = 0x80;
const FLAG_SOLICITED = 0x40;
const FLAG_OVERRIDE = 0x20;

export interface NeighborSolicitation {
  readonly kind: 'solicitation';
  readonly target: IP;
  readonly options: readonly NdpOption[];
}

export interface NeighborAdvertisement {
  readonly kind: 'advertisement';
  /** R: the sender is a router (RFC 4861 4.4). */
  readonly router: boolean;
  /** S: sent in response to a solicitation. */
  readonly solicited: boolean;
  /** O: the receiver should replace an existing cache entry's link-layer address. */
  readonly override: boolean;
  readonly target: IP;
  readonly options: readonly NdpOption[];
}

export type NdpMessage = NeighborSolicitation | NeighborAdvertisement;

/** An NDP message with the IPv6 fields a responder needs. */
export interface NdpPacket {
  readonly source: IP;
  readonly destination: IP;
  readonly hopLimit: number;
  readonly message: NdpMessage;
}

/** ff00::/8 (RFC 4291 section 2.7). */
export function isIpv6Multicast(ip: IP): boolean {
  return ip.family === 6 && ip.value >> 120n === 0xffn;
}

/** Decodes and validates an NS or NA from the ICMPv6 layer; any other ICMPv6 type is `notRequest`. */
function decodeNdpMessage(icmp: Icmpv6Packet): Decoded<NdpPacket> {
  if (icmp.type !== NdpType.neighborSolicitation && icmp.type !== NdpType.neighborAdvertisement) {
    return dropped('notRequest', `ICMPv6 type ${icmp.type}`);
  }
  if (icmp.hopLimit !== NDP_HOP_LIMIT) return dropped('badHopLimit', `hop limit ${icmp.hopLimit}`);
  if (icmp.code !== 0) return dropped('badCode', `code ${icmp.code}`);
  if (icmp.body.length < FIXED_BODY_BYTES) return dropped('truncated', `NDP message of ${icmp.body.length + 4} bytes`);
  const target = ipv6At(icmp.body, OFFSET_TARGET);
  if (isIpv6Multicast(target)) return dropped('multicastTarget');
  const options = decodeNdpOptions(icmp.body.subarray(FIXED_BODY_BYTES));
  if (!options.ok) return options;
  const flags = icmp.body[0] as number;
  const message: NdpMessage =
    icmp.type === NdpType.neighborSolicitation
      ? { kind: 'solicitation', target, options: options.value }
      : {
          kind: 'advertisement',
          router: (flags & FLAG_ROUTER) !== 0,
          solicited: (flags & FLAG_SOLICITED) !== 0,
          override: (flags & FLAG_OVERRIDE) !== 0,
          target,
          options: options.value,
        };
  return decoded({ source: icmp.source, destination: icmp.destination, hopLimit: icmp.hopLimit, message });
}

/** IPv6 bytes (the Ethernet payload) to a validated NS or NA. */
export function decodeNdp(ipv6: Uint8Array): Decoded<NdpPacket> {
  const icmp = decodeIcmpv6(ipv6);
  return icmp.ok ? decodeNdpMessage(icmp.value) : icmp;
}

/** The ICMPv6 body (after type, code, checksum) of a message; reserved bits are zero. */
function encodeNdpBody(message: NdpMessage): Uint8Array {
  const options = encodeNdpOptions(message.options);
  const out = new Uint8Array(FIXED_BODY_BYTES + options.length);
  if (message.kind === 'advertisement') {
    out[0] = (message.router ? FLAG_ROUTER : 0) | (message.solicited ? FLAG_SOLICITED : 0) | (message.override ? FLAG_OVERRIDE : 0);
  }
  writeIpv6(out, OFFSET_TARGET, message.target);
  out.set(options, FIXED_BODY_BYTES);
  return out;
}

/** The IPv6 packet (hop limit as given, normally NDP_HOP_LIMIT) with the checksum filled in. */
export function encodeNdp(packet: NdpPacket): Uint8Array {
  return encodeIcmpv6({
    source: packet.source,
    destination: packet.destination,
    hopLimit: packet.hopLimit,
    type: packet.message.kind === 'solicitation' ? NdpType.neighborSolicitation : NdpType.neighborAdvertisement,
    code: 0,
    body: encodeNdpBody(packet.message),
  });
}

/** A whole Ethernet frame; never padded (the shortest NDP frame, 14 + 40 + 24 = 78 octets, exceeds 60). */
export function encodeNdpFrame(packet: NdpPacket, destination: MacAddress, source: MacAddress, vlanTci?: number): Uint8Array {
  return encodeEthernet({
    destination,
    source,
    etherType: EtherType.ipv6,
    payload: encodeNdp(packet),
    ...(vlanTci === undefined ? {} : { vlanTci }),
  });
}
