/**
 * The IPv6 multicast addresses Neighbor Discovery uses, and their Ethernet group MACs.
 *
 * Solicited-node address (RFC 4291 section 2.7.1): ff02::1:ff00:0/104 plus the low 24 bits of the unicast address.
 *   |   8    |  4 |  4 |         80 bits             |   24 bits    |
 *   +--------+----+----+-----------------------------+--------------+
 *   |11111111|0000|0010| 0 ... 0 0000 0001 1111 1111 |  low 24 bits |   = ff02::1:ff00:0/104 + low 24 bits
 *   +--------+----+----+-----------------------------+--------------+
 * A host resolving the VIP sends its Neighbor Solicitation there, so the announcer joins that group for every
 * IPv6 address it answers for (MetalLB's ndpResponder.Watch), refcounted since addresses may share a group.
 *
 * Ethernet mapping (RFC 2464 section 7): 33:33 followed by the last four octets of the IPv6 destination, so the
 * solicited-node group's MAC is 33:33:ff:XX:XX:XX.
 */
import { formatIP, type IP } from '../../ip';
import { MAC_BYTES, type MacAddress } from './mac-address';

const SOLICITED_NODE_PREFIX = 0xff02_0000_0000_0000_0000_0001_ff00_0000n;
const LOW_24_BITS = 0xff_ffffn;
const LOW_32_BITS = 0xffff_ffffn;
/** RFC 2464 section 7: the first two octets of every IPv6 multicast MAC. */
const IPV6_MULTICAST_MAC_PREFIX = 0x33;

/** ff02::1, all nodes on the link: where unsolicited Neighbor Advertisements go (RFC 4861 7.2.6). */
export const ALL_NODES_ADDRESS: IP = { family: 6, value: 0xff02_0000_0000_0000_0000_0000_0000_0001n };
/** ::, the source of a Duplicate Address Detection probe (RFC 4862 section 5.4.2). */
export const UNSPECIFIED_ADDRESS: IP = { family: 6, value: 0n };

export function solicitedNodeAddress(ip: IP): IP {
  if (ip.family !== 6) throw new RangeError(`${formatIP(ip)} is not IPv6: solicited-node groups are IPv6 only`);
  return { family: 6, value: SOLICITED_NODE_PREFIX | (ip.value & LOW_24_BITS) };
}

export function isSolicitedNodeAddress(ip: IP): boolean {
  return ip.family === 6 && (ip.value & ~LOW_24_BITS) === SOLICITED_NODE_PREFIX;
}

/** 33:33 + the last four octets of an IPv6 multicast address (RFC 2464 section 7). */
export function ipv6MulticastMAC(group: IP): MacAddress {
  if (group.family !== 6) throw new RangeError('IPv6 multicast MACs map IPv6 groups only');
  const low = Number(group.value & LOW_32_BITS);
  const mac = new Uint8Array(MAC_BYTES);
  mac[0] = IPV6_MULTICAST_MAC_PREFIX;
  mac[1] = IPV6_MULTICAST_MAC_PREFIX;
  new DataView(mac.buffer).setUint32(2, low);
  return mac;
}

/** 33:33:ff:XX:XX:XX: the group MAC a packet socket must join to hear solicitations for `ip`. */
export function solicitedNodeMAC(ip: IP): MacAddress {
  return ipv6MulticastMAC(solicitedNodeAddress(ip));
}

/** fe80::/10 (RFC 4291 section 2.5.6). */
export function isLinkLocalIPv6(ip: IP): boolean {
  return ip.family === 6 && ip.value >> 118n === 0x3fan;
}
