/**
 * The pure core of `mlb arping` beyond a single probe: the schedule (-c, -w, the late-reply window), round-trip
 * times, the verdict with its exit code, and the text and JSON the command prints. No sockets, timers or clocks:
 * the shell (src/cli/commands/arping.ts) passes `now` (ms, any monotonic origin) to every call and sends the frame
 * when nextProbeAt() says so.
 *
 * The probe itself (the frame, the kernel filter, which frames answer it) is shared with the daemon's split-brain
 * self-check and lives in src/announce/l2/arping/neighbor-probe.ts; it is re-exported here for the command.
 * ARP replies carry no identifier, so a reply's round-trip time is measured from the latest probe sent before it,
 * as iputils arping does.
 */
import { formatIP, type IP } from '../../ip';
import { formatMAC } from '../../announce/l2/mac-address';
import { matchReply, type ArpingInterface, type ArpingProbe, type ReplyMismatch } from '../../announce/l2/arping/neighbor-probe';
import { ExitCode } from '../exit-codes';

export {
  buildProbe,
  replyFilter,
  type ArpingInterface,
  type ArpingProbe,
  type InterfaceAddress,
  type ProbeResult,
} from '../../announce/l2/arping/neighbor-probe';

/** One probe a second: iputils arping's default interval, the one operators checking MetalLB by hand know. */
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
 * ordinary ok/failure of docs/architecture.md; 3 is arping's own (2 stays "usage error").
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

/** One reply as it arrives. */
export interface ArpingReply {
  /** Lowercase, colon-separated. */
  readonly mac: string;
  readonly rttMs: number;
  /** The probe it is measured from, 1-based. */
  readonly probe: number;
}

/** Why a received frame is not a reply to us (for debugging and tests; never an error). */
export type ArpingIgnoreReason = ReplyMismatch | 'beforeFirstProbe' | 'afterEnd';

export type ReceiveResult =
  { readonly reply: ArpingReply; readonly ignored?: undefined } | { readonly ignored: ArpingIgnoreReason; readonly reply?: undefined };

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
    if (!Number.isInteger(options.count) || options.count < 1)
      throw new RangeError(`count must be a positive integer, not ${options.count}`);
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
    const match = matchReply(frame, this.options);
    if ('mismatch' in match) return { ignored: match.mismatch };
    const mac = match.mac;
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
    replies: summary.replies.map((r) => ({
      mac: r.mac,
      count: r.count,
      rttMs: r.rttMs,
      ...(r.node === undefined ? {} : { node: r.node }),
    })),
    verdict: summary.verdict,
    exitCode: summary.exitCode,
  };
}
