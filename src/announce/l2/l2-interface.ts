/**
 * What the responders and the gratuitous schedule know about an interface and the addresses it answers for,
 * and the shape of a responder's answer. Plain data: the daemon fills it from netlink; tests write it by hand.
 */
import { formatIP, type IP } from '../../ip';
import type { L2DropReason } from './drop-reasons';
import { isLinkLocalIPv6 } from './solicited-node';
import type { MacAddress } from './mac-address';

export interface L2Interface {
  /** The kernel's name (eth0); carried into effects, conflicts and logs. */
  readonly name: string;
  readonly mac: MacAddress;
  /** The interface's own addresses; an IPv6 link-local among them becomes the source of our NAs. */
  readonly addresses: readonly IP[];
}

/**
 * How the kernel classified a received frame: sll_pkttype (man 7 packet), named as src/native's PacketType names
 * it ('host', 'broadcast', 'multicast', 'otherHost', ...); the packet socket's onFrame info fits as it is.
 */
export interface FrameReceipt {
  readonly pkttype?: string;
}

/**
 * The pkttype of a frame the kernel received for another station: addressed to another MAC, or tagged for a VLAN
 * this host has no device for. A packet socket sees the latter with its 802.1Q tag already taken off (the kernel
 * strips it before delivery, net/core/dev.c __netif_receive_skb_core, and marks it PACKET_OTHERHOST), so it looks
 * like a plain broadcast; only the pkttype tells. Linux's own ARP and IPv6 ignore such frames (arp_rcv, ipv6_rcv).
 */
export const OTHER_HOST_PKTTYPE = 'otherHost';

/** The addresses this node answers for on one interface: AddressSet from src/ip fits, so does ownedIPSet. */
export interface OwnedIPs {
  has(ip: IP): boolean;
}

/** A Set-backed OwnedIPs; IPv4 and IPv6 never collide because the key includes the family. */
export function ownedIPSet(ips: Iterable<IP>): OwnedIPs {
  const keys = new Set<string>();
  for (const ip of ips) keys.add(ipKey(ip));
  return { has: (ip) => keys.has(ipKey(ip)) };
}

/** A map key for an address; the canonical text is unique per family (IPv4 dotted, IPv6 always has a colon). */
export function ipKey(ip: IP): string {
  return formatIP(ip);
}

/**
 * Someone else claims an address we own: another MAC sent an ARP reply, announcement or request naming it as
 * its sender, or a Neighbor Advertisement for it. Returned beside the drop or reply so the split-brain check
 * (mlb arping, the daemon's self-check) can count and log it; the responder does not act on it.
 */
export interface ObservedConflict {
  readonly ip: IP;
  /** The other party's link-layer address. */
  readonly mac: MacAddress;
  readonly interface: string;
  readonly evidence: 'arpReply' | 'arpAnnouncement' | 'arpRequest' | 'neighborAdvertisement';
}

/** A frame answered: the whole Ethernet frame to send on the same interface, and the owned address it answers for. */
export interface ResponderReply {
  readonly reply: Uint8Array;
  readonly target: IP;
  readonly drop?: undefined;
  readonly conflict?: ObservedConflict;
}

/** A frame not answered, with the reason the caller counts. */
export interface ResponderDrop {
  readonly drop: L2DropReason;
  readonly detail?: string;
  readonly reply?: undefined;
  readonly target?: undefined;
  readonly conflict?: ObservedConflict;
}

export type ResponderResult = ResponderReply | ResponderDrop;

export function dropResult(drop: L2DropReason, detail?: string, conflict?: ObservedConflict): ResponderDrop {
  return {
    drop,
    ...(detail === undefined ? {} : { detail }),
    ...(conflict === undefined ? {} : { conflict }),
  };
}

/**
 * The source of our Neighbor Advertisements: the interface's first link-local address, as MetalLB's ICMPv6
 * socket (bound with ndp.LinkLocal) sends from; without one, the target itself, which is what the Linux kernel
 * uses when the target is assigned locally (receivers do not validate an NA's source, RFC 4861 7.1.2).
 */
export function advertisementSource(iface: L2Interface, target: IP): IP {
  for (const a of iface.addresses) if (isLinkLocalIPv6(a)) return a;
  return target;
}
