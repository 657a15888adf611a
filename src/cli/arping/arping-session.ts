/**
 * The pure core of `mlb arping`: the probe frame, the schedule, matching replies to probes with round-trip times,
 * and the verdict. No sockets, timers or clocks: the shell (src/cli/commands/arping.ts) passes `now` (ms, any
 * monotonic origin) to every call and sends the frame when nextProbeAt() says so.
 *
 * Probes:
 * - IPv4: an ARP request (RFC 826) to ff:ff:ff:ff:ff:ff, sender = our MAC and our IPv4 on the interface (the one
 *   whose subnet holds the target, else the first), or 0.0.0.0 when the interface has none (an RFC 5227 probe,
 *   which Linux and mlb answer as well). Every probe is broadcast: unlike iputils arping, which asks the MAC it
 *   found directly after the first reply, we want every owner to hear every probe.
 * - IPv6: a Neighbor Solicitation (RFC 4861 7.2.2) to the target's solicited-node group and its 33:33:ff MAC,
 *   from our link-local address (else a global one) with a source link-layer address option, hop limit 255.
 *
 * A reply counts when it is the answer to our question and nothing else:
 * - ARP: operation reply, sender IP = the target, target MAC = our MAC (Linux answers an RFC 5227 probe to our
 *   MAC with target IP 0.0.0.0, so the target IP is not checked). The MAC is the ARP sender's, which is what
 *   a neighbour table learns. Gratuitous replies (target MAC broadcast) are announcements, not answers.
 * - NDP: a solicited Neighbor Advertisement (S=1) for the target, to our source address; the MAC is its target
 *   link-layer option, else the Ethernet source.
 * ARP replies carry no identifier, so a reply's round-trip time is measured from the latest probe sent before it,
 * as iputils arping does.
 */
import { cidrContains, formatIP, makeCIDR, type IP } from '../../ip';
import { decodeArp, arpRequest, ArpOperation, encodeArpFrame } from '../../announce/l2/arp-packet';
import { decodeEthernet, EtherType } from '../../announce/l2/ethernet';
import { BROADCAST_MAC, formatMAC, macEquals, type MacAddress } from '../../announce/l2/mac-address';
import { decodeNdp, encodeNdpFrame, NDP_HOP_LIMIT } from '../../announce/l2/ndp-packet';
import { isLinkLocalIPv6, solicitedNodeAddress, solicitedNodeMAC } from '../../announce/l2/solicited-node';
import { ACCEPT_WHOLE_FRAME, BPF_OPCODES, ETHERTYPE_OFFSET, type BpfInstruction } from '../../native/bpf-filter';
import { acceptNeighborAdvertisements } from '../../announce/l2/neighbor-solicitation-filter';
import { ExitCode } from '../exit-codes';

/** One probe a second: iputils arping's default interval, and what seed 003's operators are used to reading. */
export const ARPING_PROBE_INTERVAL_MS = 1000;
/**
 * How long replies are still counted after the last probe. A second owner may answer later than the first (a
 * busy speaker, a slower path); a full interval is what iputils waits after its last probe too.
 */
export const ARPING_LATE_REPLY_MS = 1000;
/** Three probes: enough to see a flapping owner, short enough for a shell prompt (iputils has no default). */
export const ARPING_DEFAULT_COUNT = 3;
/** An upper bound so a typo (-c 100000) does not run for a day; -w is the way to run long. */
export const ARPING_MAX_COUNT = 86_400;

/**
 * Verdicts and their exit codes: scripts branch on these, so they never change meaning. 0 and 1 are the
 * ordinary ok/failure of ARCHITECTURE.md; 3 is arping's own (2 stays "usage error").
 */
export const ArpingVerdict = {
  oneOwner: 'oneOwner',
  noReply: 'noReply',
  splitBrain: 'splitBrain',
} as const;
export type ArpingVerdict = keyof typeof ArpingVerdict;

export const ARPING_EXIT_CODES: Readonly<Record<ArpingVerdict, number>> = {
  oneOwner: ExitCode.ok,
  noReply: ExitCode.failure,
  splitBrain: ExitCode.splitBrain,
};

/** An address on an interface with its prefix length (10.213.0.1/24 is { ip: 10.213.0.1, prefix: 24 }). */
export interface InterfaceAddress {
  readonly ip: IP;
  readonly prefix: number;
}

/** What the core needs to know about the interface it asks on. */
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
export function probeSource(target: IP, iface: ArpingInterface): IP | undefined {
  const same = iface.addresses.filter((a) => a.ip.family === target.family);
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
 * and other IPv6 traffic never wake the process. receive() still checks everything the filter lets through.
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

/** One reply as it arrives. */
export interface ArpingReply {
  /** Lowercase, colon-separated. */
  readonly mac: string;
  readonly rttMs: number;
  /** The probe it is measured from, 1-based. */
  readonly probe: number;
}

/** Why a received frame is not a reply to us (for debugging and tests; never an error). */
export type ArpingIgnoreReason =
  | 'undecodable'
  | 'otherProtocol'
  | 'notAReply'
  | 'otherTarget'
  | 'notToUs'
  | 'beforeFirstProbe'
  | 'afterEnd';

export type ReceiveResult = { readonly reply: ArpingReply; readonly ignored?: undefined } | { readonly ignored: ArpingIgnoreReason; readonly reply?: undefined };

export interface RttStats {
  readonly min: number;
  readonly avg: number;
  readonly max: number;
}

/** The node that owns a MAC, when something (later: the local daemon's control socket) can say. */
export interface MacReplies {
  readonly mac: string;
  readonly count: number;
  readonly rttMs: RttStats;
  readonly node?: string;
}

export interface ArpingSummary {
  readonly ip: string;
  readonly interface: string;
  readonly sent: number;
  /** In the order the MACs first answered. */
  readonly replies: readonly MacReplies[];
  readonly verdict: ArpingVerdict;
  readonly exitCode: number;
}

export interface ArpingSessionOptions {
  readonly target: IP;
  readonly iface: ArpingInterface;
  readonly probe: ArpingProbe;
  /** Probes to send, ARPING_PROBE_INTERVAL_MS apart. */
  readonly count: number;
  /** The -w cap on the whole session, ms from start; undefined: none. */
  readonly deadlineMs?: number;
  readonly startMs: number;
}

interface MacState {
  count: number;
  min: number;
  max: number;
  sum: number;
}

/** RTTs are reported to the microsecond, as iputils prints them. */
const roundMs = (ms: number): number => Math.round(ms * 1000) / 1000;

export class ArpingSession {
  private sent = 0;
  private attempts = 0;
  private lastProbeAt: number | undefined;
  private readonly macs = new Map<string, MacState>();
  private readonly end: number;

  constructor(private readonly options: ArpingSessionOptions) {
    if (!Number.isInteger(options.count) || options.count < 1) throw new RangeError(`count must be a positive integer, not ${options.count}`);
    const lastProbe = options.startMs + (options.count - 1) * ARPING_PROBE_INTERVAL_MS;
    const natural = lastProbe + ARPING_LATE_REPLY_MS;
    this.end = options.deadlineMs === undefined ? natural : Math.min(natural, options.startMs + options.deadlineMs);
  }

  get probe(): ArpingProbe {
    return this.options.probe;
  }

  /** When the next probe is due, or undefined when all are sent or the deadline comes first. */
  nextProbeAt(): number | undefined {
    if (this.attempts >= this.options.count) return undefined;
    const at = this.options.startMs + this.attempts * ARPING_PROBE_INTERVAL_MS;
    return at < this.end ? at : undefined;
  }

  /** When the session is over: the last probe plus ARPING_LATE_REPLY_MS, or the deadline if sooner. */
  endsAt(): number {
    return this.end;
  }

  isOver(now: number): boolean {
    return now >= this.end;
  }

  /** The shell tried to send a probe; `delivered` false when the kernel's queue refused it (not counted as sent). */
  recordProbe(now: number, delivered: boolean): void {
    this.attempts++;
    if (!delivered) return;
    this.sent++;
    this.lastProbeAt = now;
  }

  receive(frame: Uint8Array, now: number): ReceiveResult {
    if (this.lastProbeAt === undefined) return { ignored: 'beforeFirstProbe' };
    if (now > this.end) return { ignored: 'afterEnd' };
    const mac = this.match(frame);
    if (typeof mac !== 'string') return { ignored: mac.ignored };
    const rttMs = Math.max(0, now - this.lastProbeAt);
    const state = this.macs.get(mac);
    if (state) {
      state.count++;
      state.sum += rttMs;
      state.min = Math.min(state.min, rttMs);
      state.max = Math.max(state.max, rttMs);
    } else {
      this.macs.set(mac, { count: 1, min: rttMs, max: rttMs, sum: rttMs });
    }
    return { reply: { mac, rttMs: roundMs(rttMs), probe: this.sent } };
  }

  /** The MAC that answers (lowercase text), or why the frame is not an answer. */
  private match(frame: Uint8Array): string | { ignored: ArpingIgnoreReason } {
    const { target, iface, probe } = this.options;
    const ethernet = decodeEthernet(frame);
    if (!ethernet.ok) return { ignored: 'undecodable' };
    const { etherType, payload, destination, source } = ethernet.value;
    if (probe.kind === 'arp') {
      if (etherType !== EtherType.arp) return { ignored: 'otherProtocol' };
      const arp = decodeArp(payload);
      if (!arp.ok) return { ignored: 'undecodable' };
      if (arp.value.operation !== ArpOperation.reply) return { ignored: 'notAReply' };
      if (arp.value.senderIP.family !== 4 || arp.value.senderIP.value !== target.value) return { ignored: 'otherTarget' };
      if (!macEquals(arp.value.targetMAC, iface.mac) || !macEquals(destination, iface.mac)) return { ignored: 'notToUs' };
      return formatMAC(arp.value.senderMAC);
    }
    if (etherType !== EtherType.ipv6) return { ignored: 'otherProtocol' };
    const ndp = decodeNdp(payload);
    if (!ndp.ok) return { ignored: ndp.reason === 'notIcmpv6' || ndp.reason === 'notRequest' ? 'otherProtocol' : 'undecodable' };
    const message = ndp.value.message;
    if (message.kind !== 'advertisement' || !message.solicited) return { ignored: 'notAReply' };
    if (message.target.value !== target.value) return { ignored: 'otherTarget' };
    if (ndp.value.destination.value !== probe.source.value || !macEquals(destination, iface.mac)) return { ignored: 'notToUs' };
    const tlla = message.options.find((o) => o.kind === 'targetLinkLayer');
    return formatMAC(tlla?.kind === 'targetLinkLayer' ? tlla.mac : source);
  }

  summary(): ArpingSummary {
    const replies: MacReplies[] = [...this.macs].map(([mac, s]) => ({
      mac,
      count: s.count,
      rttMs: { min: roundMs(s.min), avg: roundMs(s.sum / s.count), max: roundMs(s.max) },
    }));
    const verdict: ArpingVerdict = replies.length === 0 ? 'noReply' : replies.length === 1 ? 'oneOwner' : 'splitBrain';
    return {
      ip: formatIP(this.options.target),
      interface: this.options.iface.name,
      sent: this.sent,
      replies,
      verdict,
      exitCode: ARPING_EXIT_CODES[verdict],
    };
  }
}

/** Adds the node behind each MAC, as far as `nodeOf` knows (a seam for the daemon's control socket). */
export function withNodes(summary: ArpingSummary, nodeOf: ReadonlyMap<string, string>): ArpingSummary {
  return {
    ...summary,
    replies: summary.replies.map((r) => {
      const node = nodeOf.get(r.mac);
      return node === undefined ? r : { ...r, node };
    }),
  };
}

const ms = (n: number): string => n.toFixed(3);
const macWithNode = (r: { mac: string; node?: string }): string => (r.node === undefined ? r.mac : `${r.mac} (node ${r.node})`);

/** The first line, in iputils' spirit: "ARPING 10.213.0.9 from 10.213.0.1 [02:13:00:00:00:01] eth0". */
export function headerLine(target: IP, iface: ArpingInterface, probe: ArpingProbe): string {
  const what = probe.kind === 'arp' ? 'ARPING' : 'NDP (Neighbor Solicitation)';
  return `${what} ${formatIP(target)} from ${formatIP(probe.source)} [${formatMAC(iface.mac)}] ${iface.name}`;
}

/** "reply from 10.213.0.9 [02:13:00:00:00:02] on eth0 0.412 ms". */
export function replyLine(target: IP, iface: string, reply: ArpingReply): string {
  return `reply from ${formatIP(target)} [${reply.mac}] on ${iface} ${ms(reply.rttMs)} ms`;
}

/** The closing block: counts, one line per MAC, and the verdict said plainly on the last line. */
export function summaryText(summary: ArpingSummary): string {
  const total = summary.replies.reduce((n, r) => n + r.count, 0);
  const lines = [
    `--- ${summary.ip} on ${summary.interface} ---`,
    `${summary.sent} probe(s) sent, ${total} reply(ies) from ${summary.replies.length} MAC(s)`,
  ];
  for (const r of summary.replies) {
    lines.push(`  ${macWithNode(r)}  ${r.count} reply(ies)  rtt min/avg/max ${ms(r.rttMs.min)}/${ms(r.rttMs.avg)}/${ms(r.rttMs.max)} ms`);
  }
  lines.push(verdictLine(summary));
  return `${lines.join('\n')}\n`;
}

export function verdictLine(summary: ArpingSummary): string {
  switch (summary.verdict) {
    case 'oneOwner':
      return `one owner: ${summary.ip} is at ${macWithNode(summary.replies[0] as MacReplies)}`;
    case 'noReply':
      return `no reply: nothing answered for ${summary.ip} on ${summary.interface} (${summary.sent} probe(s))`;
    case 'splitBrain':
      return (
        `SPLIT BRAIN: ${summary.replies.length} MACs answer for ${summary.ip}: ${summary.replies.map(macWithNode).join(', ')} ` +
        '(two nodes each think they own it, or the address is also configured on another machine)'
      );
  }
}

/** The --json document: {ip, interface, sent, replies:[{mac, count, rttMs:{min,avg,max}}], verdict, exitCode}. */
export function summaryJSON(summary: ArpingSummary): Record<string, unknown> {
  return {
    ip: summary.ip,
    interface: summary.interface,
    sent: summary.sent,
    replies: summary.replies.map((r) => ({ mac: r.mac, count: r.count, rttMs: r.rttMs, ...(r.node === undefined ? {} : { node: r.node }) })),
    verdict: summary.verdict,
    exitCode: summary.exitCode,
  };
}
