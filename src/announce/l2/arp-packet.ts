/**
 * ARP for Ethernet and IPv4 (RFC 826; announcements RFC 5227 section 2.3).
 *
 *    0                   1                   2                   3
 *    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |   Hardware type (ar$hrd = 1)  |  Protocol type (ar$pro 0x0800)|
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   | HW len (6)    | Proto len (4) |  Operation (1 request, 2 reply)|
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |            Sender hardware address (6 octets)                 |
 *   +                               +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |                               | Sender protocol address (4)   |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |  ... sender protocol address  |                               |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+                               +
 *   |            Target hardware address (6 octets)                 |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |             Target protocol address (4 octets)                |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 * 28 octets for Ethernet/IPv4. The decoder checks every fixed field before reading addresses (the lengths in the
 * packet are never used to size a read: only 6 and 4 are accepted) and ignores trailing bytes (Ethernet padding).
 */
import type { IP } from '../../ip';
import { decoded, dropped, type Decoded } from './drop-reasons';
import { encodeEthernet, EtherType } from './ethernet';
import { BROADCAST_MAC, MAC_BYTES, macAt, type MacAddress } from './mac-address';

/** ARP operation codes (RFC 826; IANA "ARP Parameters"). Append-only. */
export const ArpOperation = {
  request: 1,
  reply: 2,
} as const;

/** ar$hrd for Ethernet (IANA hardware type 1). */
const ARP_HARDWARE_ETHERNET = 1;
/** ar$pro: the EtherType of the protocol being resolved. */
const ARP_PROTOCOL_IPV4 = EtherType.ipv4;
const ARP_IPV4_ADDRESS_BYTES = 4;
/** 8 fixed octets + 2 * (6 + 4). */
const ARP_PACKET_BYTES = 28;

const OFFSET_SENDER_MAC = 8;
const OFFSET_SENDER_IP = 14;
const OFFSET_TARGET_MAC = 18;
const OFFSET_TARGET_IP = 24;

export interface ArpPacket {
  readonly operation: number;
  readonly senderMAC: MacAddress;
  /** Always an IPv4 address (family 4). */
  readonly senderIP: IP;
  readonly targetMAC: MacAddress;
  readonly targetIP: IP;
}

export function decodeArp(bytes: Uint8Array): Decoded<ArpPacket> {
  if (bytes.length < ARP_PACKET_BYTES) return dropped('truncated', `ARP packet of ${bytes.length} bytes`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const hardwareType = view.getUint16(0);
  if (hardwareType !== ARP_HARDWARE_ETHERNET) return dropped('badHardwareType', `hardware type ${hardwareType}`);
  const protocolType = view.getUint16(2);
  if (protocolType !== ARP_PROTOCOL_IPV4) return dropped('badProtocolType', `protocol type 0x${protocolType.toString(16)}`);
  const hardwareLength = bytes[4] as number;
  const protocolLength = bytes[5] as number;
  if (hardwareLength !== MAC_BYTES || protocolLength !== ARP_IPV4_ADDRESS_BYTES) {
    return dropped('badAddressLength', `hlen ${hardwareLength} plen ${protocolLength}`);
  }
  const operation = view.getUint16(6);
  if (operation !== ArpOperation.request && operation !== ArpOperation.reply) {
    return dropped('unknownOperation', `operation ${operation}`);
  }
  return decoded({
    operation,
    senderMAC: macAt(bytes, OFFSET_SENDER_MAC),
    senderIP: { family: 4, value: BigInt(view.getUint32(OFFSET_SENDER_IP)) },
    targetMAC: macAt(bytes, OFFSET_TARGET_MAC),
    targetIP: { family: 4, value: BigInt(view.getUint32(OFFSET_TARGET_IP)) },
  });
}

/** The 28-octet packet; throws on a non-IPv4 address or a MAC that is not 6 bytes (caller errors, not wire input). */
export function encodeArp(packet: ArpPacket): Uint8Array {
  for (const ip of [packet.senderIP, packet.targetIP]) {
    if (ip.family !== 4) throw new RangeError('ARP carries IPv4 addresses only; IPv6 uses NDP');
  }
  if (packet.senderMAC.length !== MAC_BYTES || packet.targetMAC.length !== MAC_BYTES) {
    throw new RangeError('ARP hardware addresses must be 6 bytes');
  }
  const out = new Uint8Array(ARP_PACKET_BYTES);
  const view = new DataView(out.buffer);
  view.setUint16(0, ARP_HARDWARE_ETHERNET);
  view.setUint16(2, ARP_PROTOCOL_IPV4);
  out[4] = MAC_BYTES;
  out[5] = ARP_IPV4_ADDRESS_BYTES;
  view.setUint16(6, packet.operation);
  out.set(packet.senderMAC, OFFSET_SENDER_MAC);
  view.setUint32(OFFSET_SENDER_IP, Number(packet.senderIP.value));
  out.set(packet.targetMAC, OFFSET_TARGET_MAC);
  view.setUint32(OFFSET_TARGET_IP, Number(packet.targetIP.value));
  return out;
}

/** True for an ARP announcement or gratuitous ARP: the sender claims the address it names as target (RFC 5227 2.3). */
export function isArpAnnouncement(packet: ArpPacket): boolean {
  return packet.senderIP.value === packet.targetIP.value;
}

/** True for an ARP probe: sender IP 0.0.0.0, someone checking whether the target is in use (RFC 5227 2.1.1). */
export function isArpProbe(packet: ArpPacket): boolean {
  return packet.operation === ArpOperation.request && packet.senderIP.value === 0n;
}

/** A reply telling `requester` that `ip` is at `mac` (RFC 826: the request's sender becomes the target). */
export function arpReplyTo(request: ArpPacket, mac: MacAddress, ip: IP): ArpPacket {
  return {
    operation: ArpOperation.reply,
    senderMAC: mac,
    senderIP: ip,
    targetMAC: request.senderMAC,
    targetIP: request.senderIP,
  };
}

/**
 * MetalLB's gratuitous pair for one address (internal/layer2/arp.go Gratuitous): a request and a reply, both with
 * sender IP = target IP = the VIP and target MAC ff:ff:ff:ff:ff:ff, both broadcast. A speaker's tcpdump shows
 * "Request who-has 192.168.10.200 (ff:ff:ff:ff:ff:ff) tell 192.168.10.200" then "Reply 192.168.10.200 is-at ...".
 */
export function arpGratuitousPair(mac: MacAddress, ip: IP): readonly [ArpPacket, ArpPacket] {
  const base = { senderMAC: mac, senderIP: ip, targetMAC: BROADCAST_MAC, targetIP: ip };
  return [
    { operation: ArpOperation.request, ...base },
    { operation: ArpOperation.reply, ...base },
  ];
}

/** A request asking who has `target` (target MAC zero, as the Linux kernel and iputils arping send it). */
export function arpRequest(senderMAC: MacAddress, senderIP: IP, targetIP: IP): ArpPacket {
  return { operation: ArpOperation.request, senderMAC, senderIP, targetMAC: new Uint8Array(MAC_BYTES), targetIP };
}

/**
 * A whole Ethernet frame carrying `packet`, padded to 60 octets as MetalLB sends every ARP frame (a tcpdump of a
 * speaker's replies: "length 60: Reply ..."); `vlanTci` echoes the tag of the frame being answered.
 */
export function encodeArpFrame(packet: ArpPacket, destination: MacAddress, source: MacAddress, vlanTci?: number): Uint8Array {
  return encodeEthernet(
    {
      destination,
      source,
      etherType: EtherType.arp,
      payload: encodeArp(packet),
      ...(vlanTci === undefined ? {} : { vlanTci }),
    },
    { padToMinimum: true },
  );
}
