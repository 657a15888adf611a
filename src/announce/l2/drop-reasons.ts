/**
 * Why a received frame was not answered: a stable string table, APPEND-ONLY (the names appear in metrics labels
 * and logs; renaming one breaks dashboards). Decoders and responders never throw; every frame that gets no reply
 * gets exactly one of these, and the caller counts it (MetalLB's dropReason, internal/layer2/arp.go and ndp.go).
 */
import { decoded as decodedValue, dropped as droppedWith, type Decoded as GenericDecoded } from '../../errors/decoded';

export const L2DropReason = {
  /** The frame, or a header inside it, is shorter than its fixed layout or than a length field claims. */
  truncated: 'truncated',
  /** The Ethernet frame carries neither ARP (0x0806) nor IPv6 (0x86dd). */
  unsupportedEtherType: 'unsupportedEtherType',
  /** Handed to the ARP path but the EtherType is not ARP. */
  notArp: 'notArp',
  /** ARP hardware type is not Ethernet (1) (RFC 826 ar$hrd). */
  badHardwareType: 'badHardwareType',
  /** ARP protocol type is not IPv4 (0x0800) (RFC 826 ar$pro). */
  badProtocolType: 'badProtocolType',
  /** ARP hardware length is not 6 or protocol length not 4 (RFC 826 ar$hln, ar$pln). */
  badAddressLength: 'badAddressLength',
  /** ARP operation neither request (1) nor reply (2). */
  unknownOperation: 'unknownOperation',
  /** An ARP reply or announcement, or an NDP message other than a Neighbor Solicitation: nothing to answer. */
  notRequest: 'notRequest',
  /**
   * Ethernet destination is neither broadcast nor our MAC (ARP), nor our MAC or the target's group MAC (NDP); or
   * the kernel received the frame for another station (pkttype otherHost: a VLAN with no device here).
   */
  notForUs: 'notForUs',
  /** The target address is not owned on this interface. */
  notOwned: 'notOwned',
  /** Ethernet source is our own MAC: a frame we sent, seen again by the packet socket. */
  fromSelf: 'fromSelf',
  /** The sender's hardware address is multicast or broadcast: a unicast reply to it is meaningless. */
  badSender: 'badSender',
  /** IPv6 version field is not 6 (RFC 8200 section 3). */
  badIpVersion: 'badIpVersion',
  /** IPv6 next header is not ICMPv6 (58); NDP with extension headers is refused (RFC 6980). */
  notIcmpv6: 'notIcmpv6',
  /** ICMPv6 checksum over the pseudo-header does not verify (RFC 4443 section 2.3). */
  badChecksum: 'badChecksum',
  /** NDP hop limit is not 255, so it may come from off-link (RFC 4861 section 7.1.1). */
  badHopLimit: 'badHopLimit',
  /** ICMPv6 code is not 0 for an NDP message (RFC 4861 section 7.1.1). */
  badCode: 'badCode',
  /** An NDP option has length 0 or runs past the packet (RFC 4861 section 4.6: such a packet is discarded). */
  malformedOption: 'malformedOption',
  /** The solicitation's target is a multicast address (RFC 4861 section 7.1.1). */
  multicastTarget: 'multicastTarget',
  /** A solicitation without a source link-layer address option: MetalLB ignores it (no MAC to answer). */
  noSourceLinkLayer: 'noSourceLinkLayer',
  /** Duplicate Address Detection probe (unspecified source): never answered by a responder (RFC 4862 5.4). */
  dadProbe: 'dadProbe',
  /** The IPv6 destination is neither the target nor its solicited-node group (RFC 4861 section 7.2.3). */
  badDestination: 'badDestination',
} as const;
export type L2DropReason = keyof typeof L2DropReason;

/** Every reason in table order, for tests and for metrics that pre-register their label values. */
export const L2_DROP_REASONS: readonly L2DropReason[] = Object.keys(L2DropReason) as L2DropReason[];

export function isL2DropReason(s: string): s is L2DropReason {
  return Object.prototype.hasOwnProperty.call(L2DropReason, s);
}

/** What an L2 decoder returns (errors/decoded.ts): the value, or a drop with its L2DropReason. */
export type Decoded<T> = GenericDecoded<T, L2DropReason>;

export function decoded<T>(value: T): Decoded<T> {
  return decodedValue(value);
}

export function dropped<T = never>(reason: L2DropReason, detail?: string): Decoded<T> {
  return droppedWith(reason, detail);
}
