/**
 * One question on the wire: "who has this IP?", asked with an ARP request (IPv4) or a Neighbor Solicitation
 * (IPv6), and the test of whether a received frame answers it. Pure: the frame is built here and matched here;
 * a shell (probe-once.ts for the daemon's self-check, `mlb arping`'s loop in src/cli) owns the socket and clock.
 *
 * Probes:
 * - IPv4: an ARP request (RFC 826) to ff:ff:ff:ff:ff:ff, sender = our MAC and our IPv4 on the interface (the one
 *   whose subnet holds the target, else the first), or 0.0.0.0 when the interface has none (an RFC 5227 probe,
 *   which Linux and mlb answer as well). Every probe is broadcast: unlike iputils arping, which asks the MAC it
 *   found directly after the first reply, we want every owner to hear every probe. The sender is never the
 *   target itself: that would be a gratuitous ARP, and every other owner would take it as a claim.
 * - IPv6: a Neighbor Solicitation (RFC 4861 7.2.2) to the target's solicited-node group and its 33:33:ff MAC,
 *   from our link-local address (else a global one) with a source link-layer address option, hop limit 255.
 *
 * A reply counts when it is the answer to our question and nothing else:
 * - ARP: operation reply, sender IP = the target, target MAC = our MAC (Linux answers an RFC 5227 probe to our
 *   MAC with target IP 0.0.0.0, so the target IP is not checked). The MAC is the ARP sender's, which is what
 *   a neighbour table learns. Gratuitous replies (target MAC broadcast) are announcements, not answers.
 * - NDP: a solicited Neighbor Advertisement (S=1) for the target, to our source address; the MAC is its target
 *   link-layer option, else the Ethernet source.
 */
import { cidrContains, makeCIDR, type IP } from '../../../ip';
import { decodeArp, arpRequest, ArpOperation, encodeArpFrame } from '../arp-packet';
import { decodeEthernet, EtherType } from '../ethernet';
import { BROADCAST_MAC, formatMAC, macEquals, type MacAddress } from '../mac-address';
import { decodeNdp, encodeNdpFrame, NDP_HOP_LIMIT } from '../ndp-packet';
import { isLinkLocalIPv6, solicitedNodeAddress, solicitedNodeMAC } from '../solicited-node';
import { ACCEPT_WHOLE_FRAME, BPF_OPCODES, ETHERTYPE_OFFSET, type BpfInstruction } from '../../../native/bpf-filter';
import { acceptNeighborAdvertisements } from '../neighbor-solicitation-filter';

/** An address on an interface with its prefix length (10.213.0.1/24 is { ip: 10.213.0.1, prefix: 24 }). */
export interface InterfaceAddress {
  readonly ip: IP;
  readonly prefix: number;
}

/** What a probe needs to know about the interface it asks on. */
export interface ArpingInterface {
  readonly name: string;
  readonly mac: MacAddress;
  readonly addresses: readonly InterfaceAddress[];
}

export interface ArpingProbe {
  readonly kind: 'arp' | 'ndp';
  /** The whole Ethernet frame, sent unchanged for every probe. */
  readonly frame: Uint8Array;
  /** Our sender address in the probe: 0.0.0.0 for an RFC 5227 probe. */
  readonly source: IP;
}

export type ProbeResult = { readonly ok: true; readonly probe: ArpingProbe } | { readonly ok: false; readonly problem: string };

const IPV4_UNSPECIFIED: IP = { family: 4, value: 0n };

/** The address we ask from: one on the target's subnet, else the first of the family (IPv6: link-local first). */
function probeSource(target: IP, iface: ArpingInterface): IP | undefined {
  const same = iface.addresses.filter((a) => a.ip.family === target.family && a.ip.value !== target.value);
  if (target.family === 6) {
    const linkLocal = same.find((a) => isLinkLocalIPv6(a.ip));
    if (linkLocal) return linkLocal.ip;
  }
  const onSubnet = same.find((a) => cidrContains(makeCIDR(a.ip, a.prefix), target));
  return (onSubnet ?? same[0])?.ip;
}

export function buildProbe(target: IP, iface: ArpingInterface): ProbeResult {
  if (target.family === 4) {
    const source = probeSource(target, iface) ?? IPV4_UNSPECIFIED;
    const frame = encodeArpFrame(arpRequest(iface.mac, source, target), BROADCAST_MAC, iface.mac);
    return { ok: true, probe: { kind: 'arp', frame, source } };
  }
  const source = probeSource(target, iface);
  if (!source) {
    return {
      ok: false,
      problem:
        `${iface.name} has no IPv6 address, not even a link-local one, to send a Neighbor Solicitation from ` +
        `(is IPv6 disabled on it? sysctl net.ipv6.conf.${iface.name}.disable_ipv6)`,
    };
  }
  const group = solicitedNodeAddress(target);
  const frame = encodeNdpFrame(
    {
      source,
      destination: group,
      hopLimit: NDP_HOP_LIMIT,
      message: { kind: 'solicitation', target, options: [{ kind: 'sourceLinkLayer', mac: iface.mac }] },
    },
    solicitedNodeMAC(target),
    iface.mac,
  );
  return { ok: true, probe: { kind: 'ndp', frame, source } };
}

/** The ARP operation in an untagged frame: 14 + 6. */
const OFFSET_ARP_OPERATION = 20;

/**
 * The kernel-side filter: ARP replies only, or ICMPv6 Neighbor Advertisements only, so a busy segment's requests
 * and other IPv6 traffic never wake the process. matchReply still checks everything the filter lets through.
 */
export function replyFilter(kind: ArpingProbe['kind']): BpfInstruction[] {
  if (kind === 'ndp') return acceptNeighborAdvertisements();
  const { ldhAbs, jeqK, retK } = BPF_OPCODES;
  return [
    { code: ldhAbs, jt: 0, jf: 0, k: ETHERTYPE_OFFSET },
    { code: jeqK, jt: 0, jf: 3, k: EtherType.arp },
    { code: ldhAbs, jt: 0, jf: 0, k: OFFSET_ARP_OPERATION },
    { code: jeqK, jt: 0, jf: 1, k: ArpOperation.reply },
    { code: retK, jt: 0, jf: 0, k: ACCEPT_WHOLE_FRAME },
    { code: retK, jt: 0, jf: 0, k: 0 },
  ];
}

/** Why a received frame does not answer the probe (for debugging and tests; never an error). */
export type ReplyMismatch = 'undecodable' | 'otherProtocol' | 'notAReply' | 'otherTarget' | 'notToUs';

export interface ProbeQuestion {
  readonly target: IP;
  readonly iface: ArpingInterface;
  readonly probe: ArpingProbe;
}

/** The MAC that answers the probe (lowercase, colon-separated), or why the frame is not an answer. */
export function matchReply(frame: Uint8Array, question: ProbeQuestion): { readonly mac: string } | { readonly mismatch: ReplyMismatch } {
  const { target, iface, probe } = question;
  const ethernet = decodeEthernet(frame);
  if (!ethernet.ok) return { mismatch: 'undecodable' };
  const { etherType, payload, destination, source } = ethernet.value;
  if (probe.kind === 'arp') {
    if (etherType !== EtherType.arp) return { mismatch: 'otherProtocol' };
    const arp = decodeArp(payload);
    if (!arp.ok) return { mismatch: 'undecodable' };
    if (arp.value.operation !== ArpOperation.reply) return { mismatch: 'notAReply' };
    if (arp.value.senderIP.family !== 4 || arp.value.senderIP.value !== target.value) return { mismatch: 'otherTarget' };
    if (!macEquals(arp.value.targetMAC, iface.mac) || !macEquals(destination, iface.mac)) return { mismatch: 'notToUs' };
    return { mac: formatMAC(arp.value.senderMAC) };
  }
  if (etherType !== EtherType.ipv6) return { mismatch: 'otherProtocol' };
  const ndp = decodeNdp(payload);
  if (!ndp.ok) return { mismatch: ndp.reason === 'notIcmpv6' || ndp.reason === 'notRequest' ? 'otherProtocol' : 'undecodable' };
  const message = ndp.value.message;
  if (message.kind !== 'advertisement' || !message.solicited) return { mismatch: 'notAReply' };
  if (message.target.value !== target.value) return { mismatch: 'otherTarget' };
  if (ndp.value.destination.value !== probe.source.value || !macEquals(destination, iface.mac)) return { mismatch: 'notToUs' };
  const tlla = message.options.find((o) => o.kind === 'targetLinkLayer');
  return { mac: formatMAC(tlla?.kind === 'targetLinkLayer' ? tlla.mac : source) };
}
