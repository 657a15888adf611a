/**
 * Frames and an interface for the probe tests (neighbor-probe, probe-once, and `mlb arping`'s session tests):
 * our interface eth0 with MAC 02:13:00:00:00:01, two peers, and the replies a Linux kernel would send.
 */
import { parseIP, type IP } from '../../../../src/ip';
import { arpReplyTo, ArpOperation, encodeArpFrame, type ArpPacket } from '../../../../src/announce/l2/arp-packet';
import { parseMAC } from '../../../../src/announce/l2/mac-address';
import { encodeNdpFrame, NDP_HOP_LIMIT, type NdpPacket } from '../../../../src/announce/l2/ndp-packet';
import { buildProbe, type ArpingInterface, type ArpingProbe } from '../../../../src/announce/l2/arping/neighbor-probe';

export const ip = (text: string): IP => parseIP(text) as IP;
export const mac = (text: string): Uint8Array => parseMAC(text) as Uint8Array;

export const OUR_MAC = mac('02:13:00:00:00:01');
export const PEER_A = mac('02:13:00:00:00:02');
export const PEER_B = mac('02:13:00:00:00:03');
export const TARGET4 = ip('10.213.0.200');
export const TARGET6 = ip('fd00:213::200');
export const LINK_LOCAL = ip('fe80::13:ff:fe00:1');

export const eth0: ArpingInterface = {
  name: 'eth0',
  mac: OUR_MAC,
  addresses: [
    { ip: ip('192.168.1.5'), prefix: 24 },
    { ip: ip('10.213.0.1'), prefix: 24 },
    { ip: ip('fd00:213::1'), prefix: 64 },
    { ip: LINK_LOCAL, prefix: 64 },
  ],
};

export function probeFor(target: IP, iface: ArpingInterface = eth0): ArpingProbe {
  const built = buildProbe(target, iface);
  if (!built.ok) throw new Error(built.problem);
  return built.probe;
}

/** What a Linux kernel sends back to our request: an ARP reply to our MAC. */
export function arpReplyFrame(from: Uint8Array, target: IP, to: Uint8Array = OUR_MAC, requesterIP: IP = ip('10.213.0.1')): Uint8Array {
  const request: ArpPacket = {
    operation: ArpOperation.request,
    senderMAC: to,
    senderIP: requesterIP,
    targetMAC: new Uint8Array(6),
    targetIP: target,
  };
  return encodeArpFrame(arpReplyTo(request, from, target), to, from);
}

/** A Neighbor Advertisement from `from` for `target`, to `destination`. */
export function naFrame(
  from: Uint8Array,
  target: IP,
  options: { solicited?: boolean; destination?: IP; tlla?: Uint8Array | null; ethDestination?: Uint8Array } = {},
): Uint8Array {
  const tlla = options.tlla === undefined ? from : options.tlla;
  const packet: NdpPacket = {
    source: ip('fe80::13:ff:fe00:2'),
    destination: options.destination ?? LINK_LOCAL,
    hopLimit: NDP_HOP_LIMIT,
    message: {
      kind: 'advertisement',
      router: false,
      solicited: options.solicited ?? true,
      override: true,
      target,
      options: tlla === null ? [] : [{ kind: 'targetLinkLayer', mac: tlla }],
    },
  };
  return encodeNdpFrame(packet, options.ethDestination ?? OUR_MAC, from);
}
