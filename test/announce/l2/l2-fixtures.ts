/**
 * Shared golden frames for the L2 tests, each with where it comes from. Hex is written with spaces and line
 * breaks per field; `hex()` strips them.
 */

import { parseMAC, type L2Interface, type MacAddress } from '../../../src/announce/l2';

import { hex, ip, toHex } from '../../support/test-bytes';

export { hex, ip, toHex };

export function mac(text: string): MacAddress {
  const v = parseMAC(text);
  if (!v) throw new Error(`bad MAC in test: ${text}`);
  return v;
}

// ---------------------------------------------------------------------------------------------------------------
// A tcpdump of a MetalLB v0.16 lab in L2 mode: node k8s-node-2 = 52:54:00:3a:10:21 announces 192.168.10.200; the
// master 52:54:00:3a:10:20 (192.168.10.20) runs iputils arping.

/** The announcing node's interface in that capture. */
export const METALLB_NODE: L2Interface = { name: 'enp1s0', mac: mac('52:54:00:3a:10:21'), addresses: [ip('192.168.10.21')] };
export const METALLB_VIP = ip('192.168.10.200');

/** tcpdump: "52:54:00:3a:10:20 > ff:ff:ff:ff:ff:ff, length 42: Request who-has 192.168.10.200 (ff:ff:ff:ff:ff:ff) tell 192.168.10.20" */
export const ARPING_REQUEST_BROADCAST = hex(`
  ffffffffffff 5254003a1020 0806     # eth: dst broadcast, src master, ARP
  0001 0800 06 04 0001               # htype Ethernet, ptype IPv4, hlen 6, plen 4, op request
  5254003a1020 c0a80a14              # sender 52:54:00:3a:10:20 192.168.10.20
  ffffffffffff c0a80ac8              # target (ff:ff:ff:ff:ff:ff as iputils arping sends) 192.168.10.200
`);

/** tcpdump: the follow-up request, unicast to the MAC arping learnt. */
export const ARPING_REQUEST_UNICAST = hex(`
  5254003a1021 5254003a1020 0806
  0001 0800 06 04 0001
  5254003a1020 c0a80a14
  5254003a1021 c0a80ac8
`);

/** tcpdump: "52:54:00:3a:10:21 > 52:54:00:3a:10:20, length 60: Reply 192.168.10.200 is-at 52:54:00:3a:10:21" */
export const METALLB_REPLY_60 = hex(`
  5254003a1020 5254003a1021 0806     # eth: unicast back to the requester
  0001 0800 06 04 0002               # op reply
  5254003a1021 c0a80ac8              # sender: our MAC, the VIP
  5254003a1020 c0a80a14              # target: the requester's MAC and IP (RFC 826: swap)
  000000000000000000000000000000000000   # 18 octets of padding: 42 -> 60, as mdlayher/ethernet pads
`);

/** tcpdump, a gratuitous pair: "Request who-has 192.168.10.200 (ff:ff:ff:ff:ff:ff) tell 192.168.10.200", length 60. */
export const METALLB_GRATUITOUS_REQUEST = hex(`
  ffffffffffff 5254003a1021 0806
  0001 0800 06 04 0001
  5254003a1021 c0a80ac8              # sender = VIP
  ffffffffffff c0a80ac8              # target MAC broadcast (MetalLB Gratuitous), target IP = VIP
  000000000000000000000000000000000000
`);

/** ... then "Reply 192.168.10.200 is-at 52:54:00:3a:10:21", broadcast, length 60 (target MAC per MetalLB's code). */
export const METALLB_GRATUITOUS_REPLY = hex(`
  ffffffffffff 5254003a1021 0806
  0001 0800 06 04 0002
  5254003a1021 c0a80ac8
  ffffffffffff c0a80ac8
  000000000000000000000000000000000000
`);

// ---------------------------------------------------------------------------------------------------------------
// Captured from Linux's own neighbour code: two network namespaces joined by a veth pair (va 02:00:00:00:0a:01,
// 10.213.9.1, fd00:213:9::1; vb 02:00:00:00:0b:02, 10.213.9.2, fd00:213:9::2), a UDP datagram sent from A to
// each of B's addresses, frames read by an AF_PACKET socket on va (Python socket module). Checksums by the kernel.

export const KERNEL_A: L2Interface = { name: 'va', mac: mac('02:00:00:00:0a:01'), addresses: [ip('10.213.9.1'), ip('fd00:213:9::1')] };
export const KERNEL_B: L2Interface = { name: 'vb', mac: mac('02:00:00:00:0b:02'), addresses: [ip('10.213.9.2'), ip('fd00:213:9::2')] };

/** Kernel ARP request: target MAC all zeros, not padded (42 octets on a veth). */
export const KERNEL_ARP_REQUEST = hex(`
  ffffffffffff 020000000a01 0806
  0001 0800 06 04 0001
  020000000a01 0ad50901              # 10.213.9.1
  000000000000 0ad50902              # who has 10.213.9.2
`);

/** The kernel's reply from B. */
export const KERNEL_ARP_REPLY = hex(`
  020000000a01 020000000b02 0806
  0001 0800 06 04 0002
  020000000b02 0ad50902
  020000000a01 0ad50901
`);

/** Kernel Neighbor Solicitation from A for fd00:213:9::2, to its solicited-node group. */
export const KERNEL_NS = hex(`
  3333ff000002 020000000a01 86dd     # eth: 33:33:ff:00:00:02 (RFC 2464 7), IPv6
  60000000 0020 3a ff                # version 6, payload 32, next header 58, hop limit 255
  fd000213000900000000000000000001   # source fd00:213:9::1
  ff0200000000000000000001ff000002   # destination ff02::1:ff00:2 (solicited-node of ::2)
  87 00 6f5f                         # type 135 NS, code 0, checksum 0x6f5f
  00000000                           # reserved
  fd000213000900000000000000000002   # target fd00:213:9::2
  01 01 020000000a01                 # source link-layer address option
`);

/** The kernel's solicited NA from B (R=0 S=1 O=1: the kernel sets Override for its own address). */
export const KERNEL_NA = hex(`
  020000000a01 020000000b02 86dd
  60000000 0020 3a ff
  fd000213000900000000000000000002   # source: the target itself
  fd000213000900000000000000000001
  88 00 0b46                         # type 136 NA, checksum 0x0b46
  60000000                           # S=1 O=1
  fd000213000900000000000000000002
  02 01 020000000b02                 # target link-layer address option
`);

// ---------------------------------------------------------------------------------------------------------------
// mlb's NAs for B answering KERNEL_NS, with link-local fe80::ff:fe00:b02 on vb. Bytes and checksums computed
// independently with Python (struct.pack + an RFC 1071 sum over the pseudo-header), script:
//   def csum(b): s=sum(struct.unpack('!%dH'%(len(b)//2),b)); fold carries; return ~s & 0xffff
//   body = pack('!BBHI',136,0,0,flags<<24) + target + bytes([2,1]) + mac
//   pseudo = src + dst + pack('!I',len(body)) + b'\0\0\0' + bytes([58])

export const MLB_B: L2Interface = { name: 'vb', mac: mac('02:00:00:00:0b:02'), addresses: [ip('fd00:213:9::2'), ip('fe80::ff:fe00:b02')] };

/** Solicited NA: S=1 O=0 (MetalLB), from the link-local, to the solicitation's source and SLLA. */
export const MLB_SOLICITED_NA = hex(`
  020000000a01 020000000b02 86dd
  60000000 0020 3a ff
  fe80000000000000000000fffe000b02   # source fe80::ff:fe00:b02
  fd000213000900000000000000000001   # destination: the NS source
  88 00 21e2                         # NA, checksum 0x21e2 (Python)
  40000000                           # S=1 O=0
  fd000213000900000000000000000002
  02 01 020000000b02
`);

/** Unsolicited NA for the gratuitous burst: to ff02::1 / 33:33:00:00:00:01, S=0 O=1. */
export const MLB_UNSOLICITED_NA = hex(`
  333300000001 020000000b02 86dd
  60000000 0020 3a ff
  fe80000000000000000000fffe000b02
  ff020000000000000000000000000001
  88 00 41fc                         # checksum 0x41fc (Python)
  20000000                           # O=1
  fd000213000900000000000000000002
  02 01 020000000b02
`);
